#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built x86_64 kernel (pristine, baseline or patched) in one IOMMU
# mode and run one kind of dma_map_benchmark runs in it (guest/steps/
# toolruns.sh); the console goes to build/toolruns/<kernel>-<mode>-<kind>
# [-<tag>].log and its diagnostic lines are printed.
# Usage: toolruns.sh <kernel> <mode> <kind> <vCPUs> <icount shift or -> [wb.* options]
#   e.g. toolruns.sh baseline lazy one 1 1 "wb.g=64 wb.d=64"; WB_TAG names the log
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

kernel=$1 mode=$2 kind=$3 smp=$4 icount=$5 extra=${6:-}
b=build/$kernel
image=$(arch_facts x86_64 && echo "$image")
[ -f "$b/initramfs-x86_64.cpio.gz" ] || die "$b/initramfs-x86_64.cpio.gz: build it first (make $b/initramfs-x86_64.cpio.gz)"
mkdir -p build/toolruns
log=build/toolruns/$kernel-$mode-$kind${WB_TAG:+-$WB_TAG}.log
[ "$icount" != - ] || icount=""
WB_SMP=$smp WB_ICOUNT=$icount "$WB_SCRIPTS/run/boot.sh" x86_64 "$mode" "$b/out-x86_64/$image" \
	"$b/initramfs-x86_64.cpio.gz" "$log" 900 "wb.job=toolruns wb.toolruns=$kind $extra" || true
sed -n 's/^ *# //p' "$log" | grep -v '^wb: \|^Subtest\|^Totals'
