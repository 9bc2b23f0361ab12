#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hotplug step (wb.hotplug=1, else skipped): take CPU 1 offline and
# bring it back while a two-thread run with 256-page mappings goes on; the
# per-CPU IOVA caches of the CPU that leaves must not lose or leak IOVAs.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

cpu=/sys/devices/system/cpu/cpu1/online
if [ "$(wb_arg hotplug 0)" = 0 ] || [ ! -w "$cpu" ]; then
	ktap_skip_all "not asked for (wb.hotplug=1), or no $cpu"
	exit "$KSFT_SKIP"
fi
bind_benchmark_device >/dev/null
ktap_set_plan 3

# The result of one test: <name> passed if <status> is 0.
result() { # <status> <name>
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2 # exit=$1"; fi
}

timeout -k 10 "$RUN_LIMIT" dma_map_benchmark -t 2 -g 256 -s 6 >/tmp/hotplug.out 2>&1 &
pid=$!
sleep 2
rc=0
echo 0 >"$cpu" || rc=1
result "$rc" "CPU 1 goes offline during the run"
sleep 1
rc=0
echo 1 >"$cpu" || rc=1
result "$rc" "CPU 1 comes back during the run"
rc=0
wait "$pid" || rc=$?
sed 's/^/# /' /tmp/hotplug.out
result "$rc" "the run ends well"
ktap_finished
