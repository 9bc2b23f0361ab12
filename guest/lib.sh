# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Helpers for the guest's jobs; sourced by busybox sh.

# The value of wb.<name>= on the kernel command line, or <default>.
wb_arg() { # <name> [default]
	read -r cmdline </proc/cmdline
	for word in $cmdline; do
		case $word in "wb.$1="*) echo "${word#*=}"; return ;; esac
	done
	echo "${2:-}"
}

# The sysfs directory of the first PCI device <vendor>:<device>.
pci_find() { # <vendor> <device>
	for dev in /sys/bus/pci/devices/*; do
		if [ "$(cat "$dev/vendor")" = "$1" ] && [ "$(cat "$dev/device")" = "$2" ]; then
			echo "$dev"
			return 0
		fi
	done
	return 1
}

# QEMU's edu device (1234:11e8) has no driver: hand it to dma_map_benchmark.
bind_benchmark_device() {
	dev=$(pci_find 0x1234 0x11e8) || { echo "WB-ERROR no edu device (1234:11e8)"; return 1; }
	echo dma_map_benchmark >"$dev/driver_override"
	echo "${dev##*/}" >/sys/bus/pci/drivers_probe
	[ -e "$dev/driver" ] || { echo "WB-ERROR dma_map_benchmark did not bind ${dev##*/}"; return 1; }
	echo "$dev"
}

# Whether dma_map_benchmark is the series' tool (its -h lists depth, -D) or
# mainline's (which has no -h).
tool_is_v2() {
	dma_map_benchmark -h 2>&1 | grep -q -- '-D'
}

# TAP for the check job's tool runs: one "ok"/"not ok" line each, the
# program's output as comments; the plan goes at the end ("1..$TAP_COUNT").
TAP_COUNT=0
tap() { # <ok|not ok> <name> [# directive]
	TAP_COUNT=$((TAP_COUNT + 1))
	echo "$1 $TAP_COUNT $2"
}

tap_skip() { # <name> <reason>
	tap ok "$1 # SKIP $2"
}

# Every tool run has a time limit: a run that hangs fails its own case
# (exit 143, SIGTERM), and the checks after it still run.
TAP_LIMIT=60

# The program must succeed and, with -j, report at least one operation.
tap_run() { # <name> <program> [args...]
	name=$1
	shift
	rc=0
	timeout -k 10 "$TAP_LIMIT" "$@" >/tmp/tap.out 2>&1 || rc=$?
	sed 's/^/# /' /tmp/tap.out
	if [ "$rc" = 0 ] && ! grep -q '"ops":0,' /tmp/tap.out; then
		tap ok "$name"
	else
		tap "not ok" "$name # exit=$rc"
	fi
}

# tap_run, with the wall time the program took as a comment.
tap_run_timed() { # <name> <program> [args...]
	read -r start _ </proc/uptime
	tap_run "$@"
	read -r end _ </proc/uptime
	echo "# wall time: $(echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }') s"
}

# The program must fail and say <message>.
tap_refused() { # <name> <message> <program> [args...]
	name=$1 message=$2
	shift 2
	rc=0
	timeout -k 10 "$TAP_LIMIT" "$@" >/tmp/tap.out 2>&1 || rc=$?
	sed 's/^/# /' /tmp/tap.out
	if [ "$rc" != 0 ] && grep -q "$message" /tmp/tap.out; then
		tap ok "$name"
	else
		tap "not ok" "$name # exit=$rc"
	fi
}

# A second run while one is running is refused with EBUSY; the first ends well.
tap_busy() {
	timeout -k 10 "$TAP_LIMIT" dma_map_benchmark -j -s 3 -t 1 -g 1 >/tmp/busy.out 2>&1 &
	pid=$!
	sleep 1
	tap_refused "a concurrent run gets EBUSY" "Device or resource busy" \
		dma_map_benchmark -s 1 -t 1 -g 1
	rc=0
	wait "$pid" || rc=$?
	sed 's/^/# /' /tmp/busy.out
	if [ "$rc" = 0 ]; then tap ok "the run it met ends well"; else tap "not ok" "the run it met ends well # exit=$rc"; fi
}

# The IOMMU default domain type of a device: DMA, DMA-FQ, identity or none.
domain_type() { # <sysfs device dir>
	if [ -e "$1/iommu_group/type" ]; then cat "$1/iommu_group/type"; else echo none; fi
}

# Kprobes on the functions whose calls the benchmark counts: intel-iommu's
# synchronous invalidation wait, its invalidation of new mappings (which
# waits too, in caching mode only) and the IOVA allocator's rbtree slow path.
# Prints the probes it could place (none without kprobe events).
COUNTED="qi_submit_sync cache_tag_flush_range_np alloc_iova"
TRACING=/sys/kernel/tracing

counters_setup() {
	mount -t tracefs tracefs "$TRACING" 2>/dev/null || true
	[ -w "$TRACING/kprobe_events" ] || return 0
	# Count hits only: nothing needs to reach the ring buffer.
	echo 0 >"$TRACING/tracing_on"
	for fn in $COUNTED; do
		if echo "p:wb/$fn $fn" >>"$TRACING/kprobe_events" 2>/dev/null; then
			printf '%s ' "$fn"
		fi
	done
}

counters_hits() { # <function>
	awk -v e="wb/$1" '$1 == e || $1 == substr(e, 4) { print $2; found = 1 }
		END { if (!found) print 0 }' "$TRACING/kprobe_profile"
}

counters_on() { # <function>...
	: >/tmp/wb-counters
	for fn in "$@"; do
		echo "$fn $(counters_hits "$fn")" >>/tmp/wb-counters
		echo 1 >"$TRACING/events/wb/$fn/enable"
	done
}

# Disable the probes; print "<function>=<calls since counters_on>"...
counters_off() { # <function>...
	for fn in "$@"; do
		echo 0 >"$TRACING/events/wb/$fn/enable"
		start=$(awk -v f="$fn" '$1 == f { print $2 }' /tmp/wb-counters)
		printf '%s=%s ' "$fn" $(($(counters_hits "$fn") - start))
	done
}

# intel-iommu's qi_submit trace event, recorded in a trace instance of its
# own (the counters' kprobes must not fill its buffer): every IOTLB
# invalidation descriptor (type bit 1: iotlb_inv, dev_tlb_inv, p_iotlb_inv;
# not the waits).
QI_TRACE=$TRACING/instances/wb-qi
QI_EVENT=$QI_TRACE/events/intel_iommu/qi_submit

invalidations_on() {
	[ -d "$TRACING/events/intel_iommu/qi_submit" ] || return 0
	mkdir -p "$QI_TRACE"
	echo 16384 >"$QI_TRACE/buffer_size_kb"
	: >"$QI_TRACE/trace"
	echo 'qw0 & 2' >"$QI_EVENT/filter"
	echo 1 >"$QI_EVENT/enable"
}

# Stop recording; print "psi_pages=<pages invalidated page-selectively>
# whole=<domain-wide or global invalidations> lost=<events dropped>" from the
# IOTLB descriptors: granularity in qw0 bits 5:4 (1 global, 2 domain, 3
# page-selective), the address mask (log2 of the pages) in qw1 bits 5:0.
invalidations_off() {
	[ -w "$QI_EVENT/enable" ] || return 0
	echo 0 >"$QI_EVENT/enable"
	awk 'function low_byte(hex) {
			hex = substr(hex, 3)
			while (length(hex) < 2) hex = "0" hex
			return (index(HEX, substr(hex, length(hex) - 1, 1)) - 1) * 16 +
				index(HEX, substr(hex, length(hex), 1)) - 1
		}
		BEGIN { HEX = "0123456789abcdef" }
		/entries-in-buffer\/entries-written/ {
			split($3, n, "/"); lost = n[2] - n[1]
		}
		/qi_submit: iotlb_inv/ {
			for (i = 1; i <= NF; i++) if ($i == "iotlb_inv") break
			gran = int(low_byte($(i + 2)) / 16) % 4
			if (gran != 3) { whole++; next }
			# busybox awk has no pow(): 2^mask by doubling
			for (block = 1, m = low_byte($(i + 3)) % 64; m > 0; m--) block *= 2
			pages += block
		}
		END { printf "psi_pages=%d whole=%d lost=%d ", pages, whole, lost }' "$QI_TRACE/trace"
	: >"$QI_TRACE/trace"
}

# Load each of the workbench's test modules (KUnit runs their suites at
# load), print the KTAP of the suites each one added, from debugfs, between
# WB-KTAP markers, and remove it again: wb_dma_test holds edu, which the
# benchmark takes next. "WB-MODULE <name> rc=<insmod's exit>" says it loaded.
# wb.<name>=<param>=<value>,... on the kernel command line sets its parameters.
KUNIT_DEBUGFS=/sys/kernel/debug/kunit

kunit_suites() {
	for dir in "$KUNIT_DEBUGFS"/*; do
		[ ! -e "$dir/results" ] || echo "${dir##*/}"
	done
}

run_test_modules() {
	for ko in /lib/modules/*.ko; do
		[ -e "$ko" ] || continue
		name=$(basename "$ko" .ko)
		kunit_suites >/tmp/suites.before
		rc=0
		# shellcheck disable=SC2046 # parameters, comma separated
		insmod "$ko" $(wb_arg "$name" | tr , ' ') || rc=$?
		echo "WB-MODULE $name rc=$rc"
		[ "$rc" = 0 ] || continue
		for suite in $(kunit_suites); do
			! grep -qxF "$suite" /tmp/suites.before || continue
			echo "WB-KTAP-BEGIN $name $suite"
			cat "$KUNIT_DEBUGFS/$suite/results"
			echo "WB-KTAP-END"
		done
		rmmod "$name"
	done
}

# Take CPU 1 offline and bring it back while a two-thread run with 256-page
# mappings goes on: "WB-HOTPLUG rc=<the run's exit> offline=<rc> online=<rc>".
hotplug_run() {
	cpu=/sys/devices/system/cpu/cpu1/online
	if [ ! -w "$cpu" ]; then
		echo "WB-HOTPLUG rc=skip (no $cpu)"
		return 0
	fi
	dma_map_benchmark -t 2 -g 256 -s 6 >/tmp/hotplug.out 2>&1 &
	pid=$!
	sleep 2
	off=ok on=ok
	echo 0 >"$cpu" || off=failed
	sleep 1
	echo 1 >"$cpu" || on=failed
	rc=0
	wait "$pid" || rc=$?
	sed 's/^/# /' /tmp/hotplug.out
	echo "WB-HOTPLUG rc=$rc offline=$off online=$on"
}

# kmemleak reports objects unreferenced for 5 s over two scans: scan, wait,
# scan again, and print what it found (its report says "unreferenced object").
kmemleak_scan() {
	leaks=/sys/kernel/debug/kmemleak
	[ -w "$leaks" ] || return 0
	echo scan >"$leaks"
	sleep 6
	echo scan >"$leaks"
	echo "WB-KMEMLEAK $(grep -c 'unreferenced object' "$leaks" || true) objects"
	cat "$leaks"
}
