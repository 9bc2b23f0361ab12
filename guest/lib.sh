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

# Whether dma_map_benchmark is the series' tool (modes, depth, JSON, TAP) or
# Linux 6.12's.
tool_is_v2() {
	dma_map_benchmark -h 2>/dev/null | grep -q -- '-D'
}

# The IOMMU default domain type of a device: DMA, DMA-FQ, identity or none.
domain_type() { # <sysfs device dir>
	if [ -e "$1/iommu_group/type" ]; then cat "$1/iommu_group/type"; else echo none; fi
}

# Kprobes on the functions whose calls the benchmark counts: intel-iommu's
# synchronous invalidation wait and the IOVA allocator's rbtree slow path.
# Prints the probes it could place (none without kprobe events).
COUNTED="qi_submit_sync alloc_iova"
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
