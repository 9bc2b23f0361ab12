#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The trace job: one-page maps and unmaps on one thread for wb.seconds
# (default 5), for a debugger on QEMU's gdbstub to single-step some of them
# (scripts/insns.sh). WB-TRACE-READY says the run is about to start.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

dev=$(bind_benchmark_device) || exit 1
echo "WB-INFO domain=$(domain_type "$dev") device=${dev##*/}"
echo "WB-TRACE-READY"
dma_map_benchmark -s "$(wb_arg seconds 5)" -t 1 -g 1 >/dev/null
