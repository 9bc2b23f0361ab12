#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Say how the benchmark's guests ran, for the report's first line.
# Usage: accel-label.sh <kvm|tcg> [icount shift]
set -eu

case $1 in
kvm) echo "KVM: times are the host's" ;;
*)
	if [ -n "${2:-}" ]; then
		echo "TCG; 1 thread: -icount shift=$2, 1 vCPU, a deterministic cost model (one instruction = $((1 << $2)) ns); 2+ threads: host time, noisy; compare ratios"
	else
		echo "TCG: emulated, times are a cost model, compare ratios"
	fi
	;;
esac
