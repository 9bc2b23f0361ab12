#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the guest's benchmark matrix on one kernel in each IOMMU mode; the
# console of each boot is <outdir>/<mode>.log.
# Usage: bench.sh <arch> <kernel> <initrd> <outdir> <modes> <matrix> <seconds per run>
#   matrix: the wb.* kernel parameters guest/bench.sh reads
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=$1 kernel=$2 initrd=$3 outdir=$4 modes=$5 matrix=$6 seconds=$7
mkdir -p "$outdir"

# Runs per boot: the product of the list lengths; each may run twice
# (timed, then counted) and an emulated second can take several real ones.
runs=1
for list in $matrix; do
	case $list in
	wb.seconds=*) ;;
	*) runs=$((runs * $(echo "${list#*=}" | tr , '\n' | wc -l))) ;;
	esac
done
limit=$((300 + runs * 2 * (seconds * 20 + 5)))
for mode in $(echo "$modes" | tr , ' '); do
	start=$(date +%s)
	"$(dirname "$0")/boot.sh" "$arch" "$mode" "$kernel" "$initrd" "$outdir/$mode.log" "$limit" \
		"wb.job=bench $matrix" ||
		die "benchmark in mode $mode failed (console: $outdir/$mode.log)"
	say "  $(basename "$outdir") $mode: $runs runs, $(($(date +%s) - start)) s"
done
