#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The test job: KUnit has run during boot; load the test modules (their
# KUnit suites run at load), then run the dma_map_benchmark tools against
# the bound device as TAP between WB-TOOL markers: every map mode, resource
# mode on the device's BAR, a BAR it lacks and a range beyond it, a ring of
# mappings, the text output, a concurrent run, 1024 threads, a 32-bit
# caller (x86_64), and the unmodified tools of Linux 7.3 and 6.12 (the old
# ABI). A kernel without the series' tool runs only the old tools' checks.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

# The test modules first: wb_dma_test binds edu while its suites run.
run_test_modules
dev=$(bind_benchmark_device) || exit 1
echo "WB-INFO domain=$(domain_type "$dev") device=${dev##*/}"

echo "WB-TOOL-BEGIN"
echo "TAP version 13"
if tool_is_v2; then
	for mode in single sg; do
		tap_run "mode $mode" dma_map_benchmark -j -m "$mode" -s 1 -t 1 -g 4
	done
	tap_run "mode resource: the device's BAR0" dma_map_benchmark -j -m resource -B 0 -s 1 -g 1
	tap_refused "mode resource: a BAR the device lacks" "Invalid argument" \
		dma_map_benchmark -m resource -B 1 -s 1 -g 1
	tap_refused "mode resource: a range beyond the BAR" "Invalid argument" \
		dma_map_benchmark -m resource -B 0 -s 1 -g 1024
	tap_run "depth 64, 16 pages, 2 threads" dma_map_benchmark -j -D 64 -s 1 -t 2 -g 16
	tap_run "text output" dma_map_benchmark -s 1 -t 1 -g 1
	tap_busy
	tap_run_timed "1024 threads stop when the run ends" dma_map_benchmark -j -s 1 -t 1024 -g 1
	if [ -x /bin/dma_map_benchmark-i386 ]; then
		tap_run "a 32-bit caller (compat ioctl)" dma_map_benchmark-i386 -j -s 1 -t 1 -g 1
	fi
fi
tap_run "Linux 7.3's tool, single mode" dma_map_benchmark-7.3 -s 1 -t 1 -g 1
tap_run "Linux 7.3's tool, sg mode" dma_map_benchmark-7.3 -m 1 -s 1 -t 1 -g 4
tap_run "Linux 6.12's tool" dma_map_benchmark-6.12 -s 1 -t 1 -g 1
echo "1..$TAP_COUNT"
echo "WB-TOOL-END"
