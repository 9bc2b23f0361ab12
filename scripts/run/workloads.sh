#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot each kernel in each IOMMU mode with the workload job (guest/steps/
# workload.sh: pktgen through e1000e and virtio-net, direct reads from NVMe)
# and the devices of archs/x86_64.sh, one vCPU on the -icount clock, the
# consoles in <outdir>/<name>/<mode>.log. A guest that fails, hangs or
# crashes is reported and the next boot goes on: scripts/results/report.py marks
# the rows it owes as failed.
# Usage: workloads.sh <outdir> <modes> <wb.* options> <name>:<kernel>:<initrd>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

outdir=$1 modes=$2 options=$3
shift 3
arch_facts x86_64
for spec in "$@"; do
	rm -rf "${outdir:?}/${spec%%:*}"
done
mkdir -p "$outdir"
# The namespace randread reads: 64 MiB, sparse
disk=$outdir/nvme.img
rm -f "$disk"
truncate -s 64M "$disk"

for mode in $(echo "$modes" | tr , ' '); do
	for spec in "$@"; do
		IFS=: read -r name kernel initrd <<<"$spec"
		mkdir -p "$outdir/$name"
		log=$outdir/$name/$mode.log
		rc=0
		WB_SMP=1 WB_ICOUNT=1 WB_ACCEL=tcg \
			WB_QEMU_ARGS="$workload_qemu -drive file=$disk,if=none,id=nvm,format=raw" \
			"$WB_SCRIPTS/run/boot.sh" x86_64 "$mode" "$kernel" "$initrd" "$log" 900 \
			"wb.job=workload $options" || rc=$?
		[ "$rc" = 0 ] || warn "workloads of $name in mode $mode: boot.sh exit $rc (console: $log)"
	done
	say "  $mode: done"
done
