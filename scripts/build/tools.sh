#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build, statically for <arch>, the dma_map_benchmark tools a guest runs:
# the tree's own (tools/dma, with its Makefile), and unmodified, the
# pristine tree's (Linux 7.3's) and Linux 6.12's, each with the uapi header
# of its own kernel: the guest checks that their callers still work. Also
# the series tree's, for Linux 7.3 as it is (dma_map_benchmark-series), and
# the tree's and Linux 7.3's for the architecture's 32-bit ABI, if
# archs/<arch>.sh names one (compat, compat_cc): 32-bit callers.
# Usage: tools.sh <arch> <tree> <Linux 6.12 tool dir> <series tree> <output dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 tree=$(realpath "$2") old=$(realpath "$3") series=$(realpath "$4") out=$5
arch_facts "$arch"
mkdir -p "$out"
out=$(realpath "$out")

make -C "$tree/tools/dma" OUTPUT="$out/" CC="${cross}gcc -static" >"$out/build.log" 2>&1 ||
	{ show_tail "$out/build.log" 40; die "tools/dma does not build for $arch"; }

# <name>: a program built from <source> with <header> as linux/map_benchmark.h
# (with <compiler>, default the architecture's)
build_unmodified() { # <name> <source> <header> [compiler]
	mkdir -p "$out/include-$1/linux"
	cp "$3" "$out/include-$1/linux/map_benchmark.h"
	"${4:-${cross}gcc}" -static -O2 -D_GNU_SOURCE -I"$out/include-$1" -o "$out/$1" "$2" \
		2>>"$out/build.log" || { show_tail "$out/build.log" 20; die "$1 does not build for $arch"; }
}

git -C "$tree" show pristine:tools/dma/dma_map_benchmark.c >"$out/dma_map_benchmark-7.3.c"
git -C "$tree" show pristine:include/uapi/linux/map_benchmark.h >"$out/map_benchmark-7.3.h"
build_unmodified dma_map_benchmark-7.3 "$out/dma_map_benchmark-7.3.c" "$out/map_benchmark-7.3.h"
build_unmodified dma_map_benchmark-6.12 "$old/tools/testing/selftests/dma/dma_map_benchmark.c" \
	"$old/include/linux/map_benchmark.h"
build_unmodified dma_map_benchmark-series "$series/tools/dma/dma_map_benchmark.c" \
	"$series/include/uapi/linux/map_benchmark.h"

extra=""
if [ -n "$compat" ]; then
	build_unmodified "dma_map_benchmark-$compat" "$tree/tools/dma/dma_map_benchmark.c" \
		"$tree/include/uapi/linux/map_benchmark.h" "$compat_cc"
	build_unmodified "dma_map_benchmark-7.3-$compat" "$out/dma_map_benchmark-7.3.c" \
		"$out/map_benchmark-7.3.h" "$compat_cc"
	extra=", dma_map_benchmark-$compat, dma_map_benchmark-7.3-$compat"
fi

# make leaves an up-to-date program alone; the caller's stamp is its time.
touch "$out"/dma_map_benchmark*
say "  tools ($arch): dma_map_benchmark, dma_map_benchmark-7.3, dma_map_benchmark-6.12, dma_map_benchmark-series$extra"
