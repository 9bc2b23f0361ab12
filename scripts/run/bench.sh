#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the guest's benchmark matrix in each IOMMU mode on several kernels,
# which take turns within a mode; the consoles are
# <outdir>/<kernel name>/<mode>.log (one thread) and <mode>-smp.log (more).
#
# One-thread runs boot one vCPU under -icount when WB_ICOUNT is set: guest
# time then counts instructions and the results are the same on any host,
# boot after boot. Runs with more threads need vCPUs that really run in
# parallel, so they boot two vCPUs on host time.
# Usage: bench.sh <arch> <outdir> <modes> <threads> <matrix> <seconds per run> <name>:<kernel>:<initrd>...
#   matrix: the other wb.* kernel parameters guest/steps/bench.sh reads
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 outdir=$2 modes=$3 threads=$4 matrix=$5 seconds=$6
shift 6

# Runs per boot: the product of the list lengths; each may run twice
# (timed, then counted) and an emulated second can take several real ones.
runs=1
for list in $matrix; do
	case $list in
	wb.seconds=*) ;;
	*) runs=$((runs * $(echo "${list#*=}" | tr , '\n' | wc -l))) ;;
	esac
done
limit=$((300 + runs * 2 * 2 * (seconds * 20 + 5)))

# The boots of one kernel in one mode: "<log suffix> <vCPUs> <icount> <threads>"
passes() {
	many=$(echo "$threads" | tr , '\n' | grep -vx 1 | paste -sd, || true)
	if [ -z "${WB_ICOUNT:-}" ]; then
		echo "- 2 - $threads"
		return
	fi
	echo "$threads" | tr , '\n' | grep -qx 1 && echo "- 1 $WB_ICOUNT 1"
	[ -z "$many" ] || echo "-smp 2 - $many"
}

run_boot() { # <name>:<kernel>:<initrd> <mode> <suffix> <vCPUs> <icount> <threads>
	IFS=: read -r name kernel initrd <<<"$1"
	if [ "$3" = - ]; then log=$outdir/$name/$2.log; else log=$outdir/$name/$2$3.log; fi
	mkdir -p "$outdir/$name"
	icount=$5
	[ "$icount" != - ] || icount=""
	# Exit 3: the guest ran every run, some failed; the report names them.
	rc=0
	WB_SMP=$4 WB_ICOUNT=$icount "$WB_SCRIPTS/run/boot.sh" "$arch" "$2" "$kernel" \
		"$initrd" "$log" "$limit" "wb.job=bench wb.threads=$6 $matrix" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || die "benchmark of $name in mode $2 failed (console: $log)"
}

# Consoles of an earlier matrix would end up in the report.
for spec in "$@"; do
	rm -rf "${outdir:?}/${spec%%:*}"
done

for mode in $(echo "$modes" | tr , ' '); do
	start=$(date +%s)
	while read -r suffix smp icount list; do
		for spec in "$@"; do
			run_boot "$spec" "$mode" "$suffix" "$smp" "$icount" "$list"
		done
	done < <(passes)
	say "  $mode: $(($(date +%s) - start)) s"
done
