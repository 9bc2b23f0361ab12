#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel, incrementally and through ccache, showing
# progress while it runs.
# Usage: kbuild.sh <arch> <tree> <outdir> <fragment>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 tree=$(realpath "$2") out=$3
shift 3
arch_facts "$arch"

"$WB_SCRIPTS/build/kconfig.sh" "$arch" "$tree" "$out" "$@"
out=$(realpath "$out")

# Relative paths in ccache's hashes: the baseline and patched trees sit at
# the same place relative to their build directories and share hits.
export CCACHE_BASEDIR
CCACHE_BASEDIR=$(dirname "$(dirname "$out")")
start=$(date +%s)
next=$((start + 60))
kernel_make "$arch" "$tree" "$out" -j"$(nproc)" >"$out/build.log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 2
	if [ "$(date +%s)" -ge "$next" ]; then
		say "  $arch: $(grep -c '^  CC' "$out/build.log" || true) files compiled, $((next - start)) s"
		next=$((next + 60))
	fi
done
wait "$pid" || { show_tail "$out/build.log" 40; die "kernel build failed: $arch in $tree"; }
touch "$out/$image"
say "  $arch: $out/$image ($(($(date +%s) - start)) s, $(grep -c '^  CC' "$out/build.log" || true) files compiled)"
