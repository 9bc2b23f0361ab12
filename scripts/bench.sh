#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the guest's benchmark matrix in each IOMMU mode on several kernels at
# once, side by side (one QEMU each); the console of each boot is
# <outdir>/<kernel name>/<mode>.log.
# Usage: bench.sh <arch> <outdir> <modes> <matrix> <seconds per run> <name>:<kernel>:<initrd>...
#   matrix: the wb.* kernel parameters guest/bench.sh reads
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=$1 outdir=$2 modes=$3 matrix=$4 seconds=$5
shift 5

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
	pids=""
	for spec in "$@"; do
		IFS=: read -r name kernel initrd <<<"$spec"
		mkdir -p "$outdir/$name"
		"$(dirname "$0")/boot.sh" "$arch" "$mode" "$kernel" "$initrd" \
			"$outdir/$name/$mode.log" "$limit" "wb.job=bench $matrix" &
		pids="$pids $!:$name"
	done
	for entry in $pids; do
		wait "${entry%%:*}" ||
			die "benchmark of ${entry#*:} in mode $mode failed (console: $outdir/${entry#*:}/$mode.log)"
	done
	say "  $mode: $runs runs on each kernel, $(($(date +%s) - start)) s"
done
