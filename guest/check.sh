#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The test job: KUnit has run during boot; load the test modules (their
# KUnit suites run at load), run the dma kselftest against the bound device
# and report it as TAP between WB-KSELFTEST markers: its own TAP when it
# prints one, else one result for the whole program (6.12); run the
# benchmark's resource mode against a peer's prefetchable BAR both ways;
# fuzz the benchmark's ioctl with a fixed seed (wb.fuzz_seed=), its TAP
# between WB-FUZZ markers.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

# The test modules first: wb_dma_test binds edu while its suites run.
run_test_modules
dev=$(bind_benchmark_device) || exit 1
echo "WB-INFO domain=$(domain_type "$dev") device=${dev##*/}"
# The largest mapping whose IOVA is cached per CPU (the series' iova.cache_max=)
param=/sys/module/iova/parameters/cache_max
[ ! -r "$param" ] || echo "WB-INFO iova.cache_max=$(cat "$param")"
rc=0
if tool_is_v2; then
	dma_map_benchmark >/tmp/kselftest.out 2>&1 || rc=$?
else
	dma_map_benchmark -s 1 -t 1 -g 1 >/tmp/kselftest.out 2>&1 || rc=$?
fi
echo "WB-KSELFTEST-BEGIN"
if grep -q '^TAP version' /tmp/kselftest.out; then
	cat /tmp/kselftest.out
	echo "# exit=$rc"
else
	echo "TAP version 13"
	echo "1..1"
	sed 's/^/# /' /tmp/kselftest.out
	case $rc in
	0) echo "ok 1 selftests: dma: dma_map_benchmark" ;;
	4) echo "ok 1 selftests: dma: dma_map_benchmark # SKIP" ;;
	*) echo "not ok 1 selftests: dma: dma_map_benchmark # exit=$rc" ;;
	esac
fi
echo "WB-KSELFTEST-END"
! tool_is_v2 || resource_runs
! tool_can_fuzz || fuzz_run "$(wb_arg fuzz_seed 20261129)"

# Linux 6.12's own tool, unmodified, against this kernel.
if [ -x /bin/dma_map_benchmark-6.12 ]; then
	rc=0
	dma_map_benchmark-6.12 -s 1 -t 1 -g 1 >/tmp/compat.out 2>&1 || rc=$?
	sed 's/^/# /' /tmp/compat.out
	grep -q 'average unmap latency' /tmp/compat.out || [ "$rc" != 0 ] || rc=1
	echo "WB-COMPAT rc=$rc"
fi
