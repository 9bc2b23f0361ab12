#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the guest's benchmark matrix in each IOMMU mode on several kernels,
# one mode after the other; the console of each boot is
# <outdir>/<kernel name>/<mode>.log. With host time the kernels of a mode
# take turns, so that they share the host's state; with -icount
# (WB_ICOUNT), whose guests do not feel the host, they run side by side.
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

run_boot() { # <name>:<kernel>:<initrd> <mode>
	IFS=: read -r name kernel initrd <<<"$1"
	mkdir -p "$outdir/$name"
	"$(dirname "$0")/boot.sh" "$arch" "$2" "$kernel" "$initrd" \
		"$outdir/$name/$2.log" "$limit" "wb.job=bench $matrix" ||
		die "benchmark of $name in mode $2 failed (console: $outdir/$name/$2.log)"
}

for mode in $(echo "$modes" | tr , ' '); do
	start=$(date +%s)
	if [ -n "${WB_ICOUNT:-}" ]; then
		pids=""
		for spec in "$@"; do
			run_boot "$spec" "$mode" &
			pids="$pids $!"
		done
		for pid in $pids; do wait "$pid"; done
	else
		for spec in "$@"; do run_boot "$spec" "$mode"; done
	fi
	say "  $mode: $runs runs on each kernel, $(($(date +%s) - start)) s"
done
