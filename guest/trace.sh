#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The trace job: one-page maps and unmaps on one thread, run after run, for
# a debugger on QEMU's gdbstub to single-step some of them
# (scripts/insns.sh, which powers the guest off when it is done).
# WB-TRACE-READY says the runs are about to start.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

dev=$(bind_benchmark_device) || exit 1
echo "WB-INFO domain=$(domain_type "$dev") device=${dev##*/}"
echo "WB-TRACE-READY"
while :; do
	dma_map_benchmark -s 1 -t 1 -g 1 >/dev/null
done
