#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The tool step: the dma_map_benchmark tools against the bound device, one
# test each: every map mode, resource mode on the device's BAR (and that it
# maps that BAR's start), a BAR it lacks and a range beyond it, a ring of mappings, the text output, a
# concurrent run, 1024 threads, and the unmodified tools of Linux 7.3 and
# 6.12 (the old ABI); then what the series fixes: Linux 7.3's tool as a
# 32-bit caller (x86_64) and an unbind during a run. A kernel without the
# series runs the series' tool as a user of an older kernel would, the old
# tools' tests and the fixes' (expected to fail there).
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

# The program must succeed and, with -j, report at least one operation;
# with --reports, its output must also hold <text>.
expect_run() { # <name> [--reports <text>] <program> [args...]
	local name=$1 text="" rc=0
	shift
	if [ "$1" = --reports ]; then
		text=$2
		shift 2
	fi
	run_limited "$@" || rc=$?
	if [ "$rc" = 0 ] && ! grep -q '"ops":0,' "$WB_TMP/run.out" &&
		grep -qF -- "$text" "$WB_TMP/run.out"; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name # exit=$rc"
	fi
}

# expect_run, with the wall time the program took as a diagnostic.
expect_run_timed() { # <name> <program> [args...]
	local start end
	read -r start _ </proc/uptime
	expect_run "$@"
	read -r end _ </proc/uptime
	ktap_print_msg "wall time: $(echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }') s"
}

# The program must fail and say <message>.
expect_refused() { # <name> <message> <program> [args...]
	local name=$1 message=$2 rc=0
	shift 2
	run_limited "$@" || rc=$?
	if [ "$rc" != 0 ] && grep -q "$message" "$WB_TMP/run.out"; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name # exit=$rc"
	fi
}

# The text output: 7.3's three lines first, unchanged, then the new ones.
expect_text() {
	local rc=0
	run_limited dma_map_benchmark -s 1 -t 1 -g 1 || rc=$?
	if [ "$rc" = 0 ] && sed -n 1p "$WB_TMP/run.out" | grep -q "^dma mapping benchmark(SINGLE_MODE): threads:1" &&
		sed -n 2p "$WB_TMP/run.out" | grep -q "^average map latency(us):[0-9.]* standard deviation:" &&
		sed -n 3p "$WB_TMP/run.out" | grep -q "^average unmap latency(us):[0-9.]* standard deviation:" &&
		grep -q "^map latency(ns): mean:" "$WB_TMP/run.out" &&
		grep -q "^each sample includes one clock read" "$WB_TMP/run.out" &&
		grep -q "^ops:[0-9]* in " "$WB_TMP/run.out"; then
		ktap_test_pass "text output"
	else
		ktap_test_fail "text output # exit=$rc"
	fi
}

# A second run while one is running is refused with EBUSY; the first ends well.
expect_busy() {
	local pid rc=0
	timeout -k 10 "$RUN_LIMIT" dma_map_benchmark -j -s 3 -t 1 -g 1 >/tmp/busy.out 2>&1 &
	pid=$!
	sleep 1
	expect_refused "a concurrent run gets EBUSY" "Device or resource busy" \
		dma_map_benchmark -s 1 -t 1 -g 1
	wait "$pid" || rc=$?
	sed 's/^/# /' /tmp/busy.out
	if [ "$rc" = 0 ]; then
		ktap_test_pass "the run it met ends well"
	else
		ktap_test_fail "the run it met ends well # exit=$rc"
	fi
}

# What the series fixes must pass with it and fail without it: on Linux 7.3
# as it is, a failure is expected (a skip that says so), and a pass means the
# test cannot tell the two apart.
expect_fixed() { # <name> <check function>
	local name=$1 rc=0
	"$2" || rc=$?
	if [ -n "$v2" ] && [ "$rc" = 0 ]; then
		ktap_test_pass "$name"
	elif [ -n "$v2" ]; then
		ktap_test_fail "$name"
	elif [ "$rc" != 0 ]; then
		ktap_test_skip "$name: Linux 7.3 fails it, as expected"
	else
		ktap_test_fail "$name: Linux 7.3 passes it, so it tests nothing"
	fi
}

# Linux 7.3's own tool built for i386, a 32-bit caller that exists today
# (compat_ioctl); Linux 7.3 answers it ENOTTY.
compat_run() {
	run_limited dma_map_benchmark-7.3-i386 -s 1 -t 1 -g 1 &&
		grep -q "average map latency" "$WB_TMP/run.out"
}

# The series' tool on a kernel without the series: 7.3's text, and no more.
old_kernel_text() {
	local rc=0
	run_limited dma_map_benchmark-series -s 1 -t 1 -g 1 || rc=$?
	if [ "$rc" = 0 ] && grep -q "average map latency" "$WB_TMP/run.out" &&
		! grep -q "map latency(ns)" "$WB_TMP/run.out"; then
		ktap_test_pass "the series' tool on Linux 7.3 prints 7.3's results"
	else
		ktap_test_fail "the series' tool on Linux 7.3 prints 7.3's results # exit=$rc"
	fi
}

# Resource mode maps the BAR it was given: the first dma_map_phys event of
# the device during a run names BAR <bar>'s start.
resource_maps_bar() { # <bar>
	local tracing=/sys/kernel/tracing event start got on
	event=$tracing/events/dma/dma_map_phys
	mount -t tracefs tracefs "$tracing" 2>/dev/null || true
	if [ ! -w "$event/enable" ]; then
		ktap_test_skip "mode resource maps the BAR's start: no dma_map_phys event"
		return 0
	fi
	read -r on <"$tracing/tracing_on"
	: >"$tracing/trace"
	echo 1 >"$tracing/tracing_on"
	echo 1 >"$event/enable"
	run_limited dma_map_benchmark -m resource -B "$1" -s 1 -g 1 || true
	echo 0 >"$event/enable"
	echo "$on" >"$tracing/tracing_on"
	start=$(sed -n "$(($1 + 1))p" "$dev/resource" | cut -d' ' -f1)
	got=$(grep -m1 " ${dev##*/} " "$tracing/trace" | sed -n 's/.*phys_addr=\([0-9a-f]*\).*/\1/p')
	ktap_print_msg "BAR $1 starts at $start; the run mapped ${got:+0x}${got:-nothing}"
	if [ -n "$got" ] && [ $((0x$got)) = $((start)) ]; then
		ktap_test_pass "mode resource maps the BAR's start"
	else
		ktap_test_fail "mode resource maps the BAR's start"
	fi
}

# Unbinding the device ends a run in progress, which fails with ENODEV;
# Linux 7.3's unbind waits until the run has used up its time, and the run
# then ends well. The device is bound again afterwards.
unbind_run() {
	local pid rc=0 start end
	timeout -k 10 "$RUN_LIMIT" dma_map_benchmark-7.3 -s 20 -t 1 -g 1 >/tmp/unbind.out 2>&1 &
	pid=$!
	sleep 2
	read -r start _ </proc/uptime
	echo "${dev##*/}" >"$dev/driver/unbind"
	read -r end _ </proc/uptime
	wait "$pid" || rc=$?
	sed 's/^/# /' /tmp/unbind.out
	ktap_print_msg "the unbind took $(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }') s; the run exited $rc"
	echo "${dev##*/}" >/sys/bus/pci/drivers_probe
	# At once: the run had some 18 s left, and the unbind ends it.
	[ "$rc" != 0 ] && grep -q "No such device" /tmp/unbind.out &&
		echo "$start $end" | awk '{ exit !($2 - $1 < 5) }'
}

dev=$(bind_benchmark_device) || exit 1
ktap_print_msg "wb: domain=$(domain_type "$dev") device=${dev##*/}"
# Three tests of the old tools and one of an unbind on every kernel; 13
# of the series' tool, or on Linux 7.3 four of what it does there; 32-bit
# callers on x86_64: Linux 7.3's tool, and the series' with the series.
plan=4 v2="" i386=""
tool_is_v2 && v2=1
[ ! -x /bin/dma_map_benchmark-i386 ] || i386=1 plan=$((plan + 1))
if [ -n "$v2" ]; then
	plan=$((plan + 13))
	[ -z "$i386" ] || plan=$((plan + 1))
else
	plan=$((plan + 4))
fi
ktap_set_plan "$plan"

if [ -n "$v2" ]; then
	# The JSON names the mode the kernel ran: -m takes names, in any case.
	expect_run "mode single" --reports '"mode":"SINGLE_MODE"' \
		dma_map_benchmark -j -m single -s 1 -t 1 -g 4
	expect_run "mode sg" --reports '"mode":"SG_MODE"' \
		dma_map_benchmark -j -m SG -s 1 -t 1 -g 4
	expect_refused "an unknown mode is refused" "invalid map mode" \
		dma_map_benchmark -m foo -s 1
	expect_refused "a bad option prints the usage" "usage:" dma_map_benchmark -z
	expect_run "mode resource: the device's BAR0" dma_map_benchmark -j -m resource -B 0 -s 1 -g 1
	resource_maps_bar 0
	expect_refused "mode resource: a BAR the device lacks" "Invalid argument" \
		dma_map_benchmark -m resource -B 1 -s 1 -g 1
	expect_refused "mode resource: a range beyond the BAR" "Invalid argument" \
		dma_map_benchmark -m resource -B 0 -s 1 -g 1024
	expect_run "depth 64, 16 pages, 2 threads" --reports '"depth":64,' \
		dma_map_benchmark -j -D 64 -s 1 -t 2 -g 16
	expect_text
	expect_busy
	expect_run_timed "1024 threads stop when the run ends" dma_map_benchmark -j -s 1 -t 1024 -g 1
	[ -z "$i386" ] || expect_run "the series' tool for i386, its new results" \
		dma_map_benchmark-i386 -j -D 4 -s 1 -t 1 -g 1
else
	old_kernel_text
	expect_refused "the series' tool on Linux 7.3: -j has no percentiles" \
		"reports no percentiles" dma_map_benchmark-series -j -s 1 -t 1 -g 1
	expect_refused "the series' tool on Linux 7.3: -D is refused after the run" \
		"ignores -D" dma_map_benchmark-series -D 4 -s 1 -t 1 -g 1
	expect_refused "the series' tool on Linux 7.3: no resource mode" "Invalid argument" \
		dma_map_benchmark-series -m resource -B 0 -s 1 -g 1
fi
[ -z "$i386" ] || expect_fixed "Linux 7.3's tool for i386 (compat ioctl)" compat_run
expect_run "Linux 7.3's tool, single mode" dma_map_benchmark-7.3 -s 1 -t 1 -g 1
expect_run "Linux 7.3's tool, sg mode" dma_map_benchmark-7.3 -m 1 -s 1 -t 1 -g 4
expect_run "Linux 6.12's tool" dma_map_benchmark-6.12 -s 1 -t 1 -g 1
expect_fixed "an unbind ends a run at once, with ENODEV" unbind_run
ktap_finished
