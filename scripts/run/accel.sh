#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Choose the x86_64 accelerator: KVM only when the CPU offers vmx/svm,
# /dev/kvm is usable and a probe boot of <kernel> reaches the guest's init;
# else TCG. Prints "kvm" or "tcg" on stdout and the reason on stderr.
# Usage: accel.sh <kernel> <initrd> <log>
# WB_CPUINFO and WB_KVM_DEVICE stand for /proc/cpuinfo and /dev/kvm (tests).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

kernel=$1 initrd=$2 log=$3

tcg() { echo "accelerator: TCG ($1)" >&2; echo tcg; exit 0; }

grep -qwE 'vmx|svm' "${WB_CPUINFO:-/proc/cpuinfo}" || tcg "the CPU shows no vmx/svm flag"
[ -w "${WB_KVM_DEVICE:-/dev/kvm}" ] || tcg "/dev/kvm is missing or not writable"
WB_ACCEL=kvm "$WB_SCRIPTS/run/boot.sh" x86_64 "$WB_MODE_DIRECT" "$kernel" "$initrd" "$log" 60 \
	wb.job=probe >/dev/null 2>&1 ||
	tcg "a probe boot under KVM did not reach init within 60 s"
echo "accelerator: KVM" >&2
echo kvm
