#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Measure what each patch of a range changes: build the x86_64 kernel at
# each revision (one worktree and one build directory per job, so that each
# build is incremental), run the job on all of them in one run with one
# initramfs (the tree tip's), and print them side by side
# (scripts/results/per_patch.py). The jobs:
#   bench      the benchmark matrix (scripts/run/bench.sh, one thread); each
#              kernel and its vmlinux stay in <workdir>/kernels/, named by
#              revision, for scripts/run/insns.sh to trace
#   workload   the workloads (scripts/run/workloads.sh) on the kernels the
#              fragments make workload kernels, in <workdir>/workload-kernels/
# Usage: per-patch.sh <job> <tree> <workdir> <initramfs> <modes> <options> <rev>... -- <fragment>...
#   options: the job's wb.* parameters
set -eu -o pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

usage="usage: per-patch.sh bench|workload <tree> <workdir> <initramfs> <modes> <options> <rev>... -- <fragment>..."
[ "$#" -ge 6 ] || die "$usage"
job=$1 tree=$2 work=$3 initrd=$4 modes=$5 options=$6
shift 6
revs=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
	revs+=("$1")
	shift
done
if [ "$#" -lt 2 ] || [ "${#revs[@]}" = 0 ]; then
	die "$usage"
fi
shift
case $job in
bench) kernels=$work/kernels out=$work/out results=$work/results ;;
workload) kernels=$work/workload-kernels out=$work/out-workload results=$work/workloads ;;
*) die "per-patch.sh: no job $job (bench or workload)" ;;
esac
arch_facts x86_64

specs=() names=()
mkdir -p "$kernels"
for rev in "${revs[@]}"; do
	name=$(git -C "$tree" rev-parse --short "$rev^{commit}")
	say "per-patch: $name $(git -C "$tree" log -1 --format=%s "$rev")"
	"$WB_SCRIPTS/tree/worktree.sh" "$tree" "$rev" "$work/linux"
	"$WB_SCRIPTS/build/kbuild.sh" x86_64 "$work/linux" "$out" "$@"
	cp "$out/$image" "$kernels/$name"
	cp "$out/vmlinux" "$kernels/$name.vmlinux"
	specs+=("$name:$kernels/$name:$initrd")
	names+=("$name")
done
if [ "$job" = bench ]; then
	"$WB_SCRIPTS/run/bench.sh" x86_64 "$results" "$modes" 1 "$options" 1 "${specs[@]}"
	python3 "$WB_SCRIPTS/results/per_patch.py" "$results" "${names[@]}" | tee "$work/per-patch.txt"
else
	"$WB_SCRIPTS/run/workloads.sh" "$results" "$modes" "$options" "${specs[@]}"
	python3 "$WB_SCRIPTS/results/per_patch.py" --workloads "$results" "${names[@]}" |
		tee "$work/per-patch-workloads.txt"
fi
