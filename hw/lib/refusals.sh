# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (hw-run.sh): what it refuses, all checked
# before anything is touched; each refusal says why and exits 2. Sourced by
# hw-run.sh.

# The matrix: no more THREADS than CPUs (WB_CPUS), MODES the kit can set.
refuse_matrix() {
	local t mode
	for t in $(echo "$THREADS" | tr , ' '); do
		[ "$t" -le "$WB_CPUS" ] || refuse "THREADS=$THREADS: $t threads on $WB_CPUS CPUs"
	done
	for mode in $(echo "$MODES" | tr , ' '); do mode_type "$mode" >/dev/null; done
}

# The device: one there, behind an IOMMU, with no driver unless <take> (1)
# says to take it, and a kernel with dma_map_benchmark to bind it to.
refuse_device() { # <PCI address> <take>
	local address=$1 take=$2 dev=$WB_SYSFS/bus/pci/devices/$1 driver
	[ -e "$dev" ] || refuse "no PCI device $address"
	[ -e "$dev/iommu_group" ] ||
		refuse "$address is in no IOMMU group: this machine has no IOMMU, or it is off (machine.json)"
	driver=$(link_name "$dev/driver")
	[ -z "$driver" ] || [ -n "$take" ] ||
		refuse "$address is in use by driver $driver: --take takes it (it is given back at the end)"
	[ -d "$WB_SYSFS/bus/pci/drivers/dma_map_benchmark" ] ||
		refuse "this kernel has no dma_map_benchmark driver (CONFIG_DMA_MAP_BENCHMARK)"
}

# The block device the workload reads: there, and neither mounted, swapped
# on nor held (a partition of it neither), by whatever name it is given
# (a /dev/disk/by-id/ link is its device's name here). randread opens it
# O_EXCL besides, which the kernel refuses for any of these.
refuse_block() { # <block device>
	local block=$1 name
	name=$(readlink -f "$block" 2>/dev/null || echo "$block")
	name=${name##*/}
	[ -b "$block" ] || [ -e "$WB_SYSFS/class/block/$name" ] || refuse "no block device $block"
	! awk -v n="$name" '{ sub("^/dev/", "", $1) } index($1, n) == 1 { found = 1 } END { exit !found }' \
		"$PROC/mounts" "$PROC/swaps" || refuse "$block (or a partition of it) is mounted or swapped on"
	for holders in "$WB_SYSFS/class/block/$name/holders" "$WB_SYSFS/class/block/$name"/"$name"*/holders; do
		[ -z "$(ls "$holders" 2>/dev/null)" ] ||
			refuse "$block (or a partition of it) is held by $(ls "$holders")"
	done
}

# The NIC pktgen sends from: there, and carrying no address unless <take>.
refuse_nic() { # <interface> <take>
	[ -e "$WB_SYSFS/class/net/$1" ] || refuse "no network interface $1"
	[ -z "$(ip -o addr show dev "$1" 2>/dev/null)" ] || [ -n "$2" ] ||
		refuse "$1 carries addresses (in use): --take sends on it anyway"
}
