#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay out the hardware kit (issue 31) in <out dir> and pack it as
# <out dir>.tar.gz: the runner, its parts (lib/) and its README (hw/), the
# guest's own bench and workload steps with the helpers they source (guest/,
# and the tree's ktap_helpers.sh) in wb/, so that the machine runs what the
# guests run, and in bin/ the patched dma_map_benchmark, Linux 7.3's
# unmodified one and randread, all static.
# Usage: hw-kit.sh <tools dir> <randread> <ktap_helpers.sh> <out dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# = 4 ] || die "usage: hw-kit.sh <tools dir> <randread> <ktap_helpers.sh> <out dir>"
tools=$1 randread=$2 helpers=$3 out=$4
top=$WB_SCRIPTS/..
# A killed 'make check-breaks' can leave a break in hw/ or guest/ (one with
# "root": "workbench"): never pack that for a real machine.
marker=$(git -C "$top" rev-parse --absolute-git-dir 2>/dev/null)/wb-break
[ ! -f "$marker" ] || die "break $(cat "$marker") is still applied to the workbench" \
	"(a 'make check-breaks' was killed): 'git checkout -- hw guest && rm $marker' undoes it"

rm -rf "$out" "$out.tar.gz"
mkdir -p "$out/wb/steps" "$out/bin" "$out/lib"
install -m 755 "$top/hw/hw-run.sh" "$out/"
install -m 644 "$top"/hw/lib/*.sh "$out/lib/"
install -m 644 "$top/hw/README.md" "$out/"
install -m 644 "$top"/guest/{lib,protocol,objects,counters}.sh "$helpers" "$out/wb/"
install -m 755 "$top"/guest/steps/{bench,workload}.sh "$out/wb/steps/"
install -m 755 "$tools/dma_map_benchmark" "$tools/dma_map_benchmark-7.3" "$randread" "$out/bin/"
# Which workbench made it: a report names the kit it came from.
git -C "$top" describe --always --dirty >"$out/VERSION" 2>/dev/null || echo unknown >"$out/VERSION"

# Same inputs, same tarball: sorted names, fixed times and owners.
tar -C "$(dirname "$out")" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	-cf - "$(basename "$out")" | gzip -n -9 >"$out.tar.gz"
say "  hw kit: $out.tar.gz"
