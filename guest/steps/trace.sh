#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The trace step: maps and unmaps of wb.granules= pages (one by default) on
# one thread, run after run, for a debugger on QEMU's gdbstub to single-step
# some of them (scripts/run/insns.sh, which powers the guest off when it is
# done). The line "# $WB_TRACE_START" (guest/protocol.sh) says the runs are
# about to start.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

granule=$(wb_arg granules 1)
dev=$(bind_benchmark_device)
ktap_print_msg "wb: domain=$(domain_type "$dev") device=${dev##*/}"
trace_start
while :; do
	dma_map_benchmark -s 1 -t 1 -g "$granule" >/dev/null
done
