#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel and initramfs under QEMU in one IOMMU mode with a time limit,
# the console in <log>. Exit 0 when the guest job ran to its end, 3 when it
# ended but failed, 1 when the guest did not boot, crashed or hung (with its
# last console lines shown).
# Usage: boot.sh <arch> <mode> <kernel> <initrd> <log> <seconds> <append>
#   mode: a name of guest/protocol.sh's WB_MODES (by default off: no
#   translation, lazy, strict, or cm: x86_64's VT-d caching mode, the
#   virtual-IOMMU case, where the kernel picks its default strictness); its
#   role keys archs/<arch>.sh's iommu_<role> and append_<role>.
# WB_ACCEL=kvm|tcg picks the accelerator for x86_64 (default tcg).
# WB_ICOUNT=<shift> runs TCG with -icount: guest time then counts executed
# instructions (2^shift ns each), the same on any host and under any load.
# WB_SMP sets the number of vCPUs (default 2).
# WB_QEMU_ARGS adds QEMU options (scripts/run/insns.sh: its gdbstub).
# WB_APPEND adds kernel parameters (make APPEND=...).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 mode=$2 kernel=$3 initrd=$4 log=$5 limit=$6 append=$7

arch_facts "$arch"
role=$(mode_role "$mode") || die "unknown IOMMU mode '$mode' (guest/protocol.sh: $WB_MODES)"
iommu=iommu_$role mode_append=append_$role
[ -n "${!mode_append+set}" ] || die "$arch has no IOMMU mode $mode (archs/$arch.sh: no $mode_append)"
append="${!mode_append} $append_all $append ${WB_APPEND:-}"
accel="-accel tcg $cpu"
[ -z "${WB_ICOUNT:-}" ] || accel="-accel tcg -icount shift=$WB_ICOUNT,sleep=off $cpu"
if [ "${WB_ACCEL:-tcg}" = kvm ]; then
	[ -n "$cpu_kvm" ] || die "no KVM set-up for $arch"
	accel=$cpu_kvm
fi
# QEMU's edu: a PCI device no driver claims, for dma_map_benchmark.
qemu="$qemu $accel ${!iommu} -device edu ${WB_QEMU_ARGS:-}"

rc=0
# shellcheck disable=SC2086 # $qemu is a command line
timeout -k 10 "$limit" $qemu -smp "${WB_SMP:-2}" -m 2G -nodefaults -display none -no-reboot \
	-serial "file:$log" -kernel "$kernel" -initrd "$initrd" \
	-append "console=$console panic=-1 oops=panic $append" \
	</dev/null >"$log.qemu" 2>&1 || rc=$?

name="$arch guest ($mode, $(basename "$log" .log))"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	show_tail "$log" 40
	die "$name hung: killed after $limit s"
fi
# The guest's KTAP document ends with its end marker and status (guest/init).
end=$(guest_end "$log")
if [ -z "$end" ]; then
	[ ! -s "$log.qemu" ] || show_tail "$log.qemu" 10
	show_tail "$log" 40
	die "$name did not boot or crashed (qemu exit $rc)"
fi
if ! guest_passed "$log"; then
	show_tail "$log" 40
	warn "$name: job failed ($end)"
	exit 3
fi
