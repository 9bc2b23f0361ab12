#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one of the workbench's test modules (modules/<name>/: sources and a
# Kbuild file) out of tree against a built kernel, through ccache. The
# sources are copied to <out dir> first, as kbuild writes objects beside
# them; a warning fails the build.
# Usage: module.sh <arch> <tree> <kernel outdir> <module source dir> <out dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 tree=$(realpath "$2") kout=$(realpath "$3") src=$4 out=$5
name=$(basename "$src")
mkdir -p "$out"
out=$(realpath "$out")

# Copy only what changed, so that an unchanged module is not rebuilt.
for f in "$src"/*; do
	cmp -s "$f" "$out/${f##*/}" || cp "$f" "$out/"
done
kernel_make "$arch" "$tree" "$kout" M="$out" modules >"$out/build.log" 2>&1 ||
	{ show_tail "$out/build.log" 40; die "module $name does not build for $arch"; }
if grep -q 'warning:' "$out/build.log"; then
	grep -A3 'warning:' "$out/build.log" >&2
	die "module $name builds with warnings for $arch"
fi
touch "$out/$name.ko"
say "  module $name ($arch): $out/$name.ko"
