#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Measure what each patch of a range changes: build the x86_64 kernel at
# each revision (one worktree and one build directory, so that each build
# is incremental), run the benchmark matrix on all of them in one run with
# one initramfs (the tool and guest of the tree's tip), and print them side
# by side (scripts/results/per_patch.py). Each kernel and its vmlinux stay in
# <workdir>/kernels/, named by revision.
# Usage: per-patch.sh <tree> <workdir> <initramfs> <modes> <matrix> <rev>... -- <fragment>...
#   matrix: wb.* parameters of guest/steps/bench.sh (one thread)
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 work=$2 initrd=$3 modes=$4 matrix=$5
shift 5
revs=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
	revs+=("$1")
	shift
done
if [ "$#" -lt 2 ] || [ "${#revs[@]}" = 0 ]; then
	die "usage: per-patch.sh <tree> <workdir> <initramfs> <modes> <matrix> <rev>... -- <fragment>..."
fi
shift
arch_facts x86_64

specs=() names=()
mkdir -p "$work/kernels"
for rev in "${revs[@]}"; do
	name=$(git -C "$tree" rev-parse --short "$rev^{commit}")
	say "per-patch: $name $(git -C "$tree" log -1 --format=%s "$rev")"
	"$WB_SCRIPTS/tree/worktree.sh" "$tree" "$rev" "$work/linux"
	"$WB_SCRIPTS/build/kbuild.sh" x86_64 "$work/linux" "$work/out" "$@"
	cp "$work/out/$image" "$work/kernels/$name"
	# Its symbols, for scripts/run/insns.sh to trace that kernel
	cp "$work/out/vmlinux" "$work/kernels/$name.vmlinux"
	specs+=("$name:$work/kernels/$name:$initrd")
	names+=("$name")
done
"$WB_SCRIPTS/run/bench.sh" x86_64 "$work/results" "$modes" 1 "$matrix" 1 "${specs[@]}"
python3 "$WB_SCRIPTS/results/per_patch.py" "$work/results" "${names[@]}" | tee "$work/per-patch.txt"
