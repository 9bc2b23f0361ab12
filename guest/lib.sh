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

# The IOMMU default domain type of a device: DMA, DMA-FQ, identity or none.
domain_type() { # <sysfs device dir>
	if [ -e "$1/iommu_group/type" ]; then cat "$1/iommu_group/type"; else echo none; fi
}
