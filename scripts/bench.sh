#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the guest's benchmark matrix on one kernel in each IOMMU mode; the
# console of each boot is <outdir>/<mode>.log.
# Usage: bench.sh <arch> <kernel> <initrd> <outdir> <modes> <granules> <threads> <seconds>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=$1 kernel=$2 initrd=$3 outdir=$4 modes=$5 granules=$6 threads=$7 seconds=$8
mkdir -p "$outdir"

runs=$(($(echo "$granules" | tr , '\n' | wc -l) * $(echo "$threads" | tr , '\n' | wc -l)))
limit=$((120 + runs * (seconds + 15)))
for mode in $(echo "$modes" | tr , ' '); do
	start=$(date +%s)
	"$(dirname "$0")/boot.sh" "$arch" "$mode" "$kernel" "$initrd" "$outdir/$mode.log" "$limit" \
		"wb.job=bench wb.granules=$granules wb.threads=$threads wb.seconds=$seconds" ||
		die "benchmark in mode $mode failed (console: $outdir/$mode.log)"
	say "  $(basename "$outdir") $mode: $runs runs, $(($(date +%s) - start)) s"
done
