#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the tree's tools/testing/selftests/dma statically for <arch>, with
# the tree's own kselftest Makefile and its exported headers.
# Usage: selftest.sh <arch> <tree> <kernel outdir> <output dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=$1 tree=$(realpath "$2") kout=$(realpath "$3") out=$4
cross=$(cross_prefix "$arch")
mkdir -p "$out"
out=$(realpath "$out")

# The selftest's Makefile looks for the exported headers in <tree>/usr/include
# (ignored by git there); they are per architecture, so install them each time.
kernel_make "$arch" "$tree" "$kout" -s INSTALL_HDR_PATH="$tree/usr" headers_install >"$out/headers.log" 2>&1 ||
	{ show_tail "$out/headers.log" 40; die "headers_install failed for $arch"; }
make -C "$tree/tools/testing/selftests/dma" OUTPUT="$out" ARCH="$arch" \
	CROSS_COMPILE="$cross" CC="${cross}gcc" USERLDFLAGS=-static >"$out/build.log" 2>&1 ||
	{ show_tail "$out/build.log" 40; die "selftests/dma build failed for $arch"; }
# Linux 6.12's own tool, from the base's source, against this tree's headers:
# the guest checks that an unmodified 6.12 caller still works.
git -C "$tree" show base:tools/testing/selftests/dma/dma_map_benchmark.c >"$out/dma_map_benchmark-6.12.c"
mkdir -p "$out/include-6.12/linux"
git -C "$tree" show base:include/linux/map_benchmark.h >"$out/include-6.12/linux/map_benchmark.h"
"${cross}gcc" -static -O2 -I"$out/include-6.12" -I"$tree/usr/include" \
	-o "$out/dma_map_benchmark-6.12" "$out/dma_map_benchmark-6.12.c" 2>>"$out/build.log" ||
	{ show_tail "$out/build.log" 20; die "Linux 6.12's dma_map_benchmark does not build for $arch"; }

# make leaves an up-to-date program alone; the caller's stamp is its time.
find "$out" -maxdepth 1 -type f -perm -u+x -exec touch {} +
say "  selftests/dma ($arch): $(cd "$out" && find . -maxdepth 1 -type f -perm -u+x | sed 's|^\./||' | tr '\n' ' ')"
