#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Measure what each patch of a range changes: build the x86_64 kernel at
# each revision, run the job on all of them in one run with one initramfs
# (the tree tip's), and print them side by side (scripts/results/
# per_patch.py). The revisions are checked out one after the other in one
# worktree, <workdir>/linux, which the jobs share under a lock (a job
# checking out a revision under the other's build would build the wrong
# sources); each job builds in a directory of its own, so that each build
# is incremental. The jobs:
#   bench      the benchmark matrix (scripts/run/bench.sh, one thread) on
#              the kernels in <workdir>/kernels/, each named by revision,
#              beside its vmlinux for scripts/run/insns.sh to trace
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
arch_facts x86_64

# Build the kernel at each revision into <out>, keep it and its vmlinux as
# <kernels>/<rev> and <rev>.vmlinux; sets specs (name:kernel:initramfs, for
# the run) and names.
build_each() { # <out> <kernels> <fragment>...
	local out=$1 kernels=$2 rev name
	shift 2
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
}

bench_job() { # <fragment>...
	build_each "$work/out" "$work/kernels" "$@"
	"$WB_SCRIPTS/run/bench.sh" x86_64 "$work/results" "$modes" 1 "$options" 1 "${specs[@]}"
	python3 "$WB_SCRIPTS/results/per_patch.py" "$work/results" "${names[@]}" |
		tee "$work/per-patch.txt"
}

workload_job() { # <fragment>...
	build_each "$work/out-workload" "$work/workload-kernels" "$@"
	"$WB_SCRIPTS/run/workloads.sh" "$work/workloads" "$modes" "$options" "${specs[@]}"
	python3 "$WB_SCRIPTS/results/per_patch.py" --workloads "$work/workloads" "${names[@]}" |
		tee "$work/per-patch-workloads.txt"
}

case $job in
bench | workload) ;;
*) die "per-patch.sh: no job $job (bench or workload)" ;;
esac
mkdir -p "$work"
exec 9>"$work/linux.lock"
flock 9
"${job}_job" "$@"
