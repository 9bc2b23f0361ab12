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
	[ -z "$driver" ] || refuse_lifeline "$address"
	[ -d "$WB_SYSFS/bus/pci/drivers/dma_map_benchmark" ] ||
		refuse "this kernel has no dma_map_benchmark driver (CONFIG_DMA_MAP_BENCHMARK; modprobe dma_map_benchmark if it is a module)"
}

# The major:minor numbers of block device <name> and of its partitions.
block_numbers() { # <name>
	cat "$WB_SYSFS/class/block/$1/dev" "$WB_SYSFS/class/block/$1"/"$1"*/dev 2>/dev/null
}

# Whether a device bound to <driver> keeps the kernel from changing its
# group's type: every driver but none and those that manage their DMA
# themselves (driver_managed_dma: a PCIe port, pci-stub), which the kernel
# does not count as the group's owners.
holds_group() { # <driver>
	case $1 in "" | pcieport | pci-stub) return 1 ;; esac
}

# What else holds the device's group or the benchmark driver: a group with
# another bound device keeps its type (the kernel changes only a group no
# driver holds), so a matrix with no mode of that type could run nothing;
# dma_map_benchmark serves one device (its second probe fails: one debugfs
# file), so another bound to it leaves every mode unbound.
refuse_shared() { # <PCI address>
	local dev=$WB_SYSFS/bus/pci/devices/$1 d driver held="" type mode
	for d in "$WB_SYSFS"/bus/pci/devices/*; do
		[ "${d##*/}" != "$1" ] || continue
		[ "$(link_name "$d/driver")" != dma_map_benchmark ] ||
			refuse "${d##*/} is bound to dma_map_benchmark, which serves one device at a time"
	done
	for d in "$dev"/iommu_group/devices/*; do
		driver=$(link_name "$d/driver")
		[ "${d##*/}" = "$1" ] || ! holds_group "$driver" || held="${d##*/} (bound to $driver)"
	done
	[ -n "$held" ] || return 0
	type=$(cat "$dev/iommu_group/type")
	for mode in $(echo "$MODES" | tr , ' '); do
		[ "$(mode_type "$mode")" != "$type" ] || return 0
	done
	refuse "group $(link_name "$dev/iommu_group") also holds $held, so it keeps its type $type, which no mode of MODES=$MODES is"
}

# A process that holds block device <name>, or a partition of it, open, as
# "<pid> (<command>)": a VM's disk (QEMU opens it without O_EXCL), a
# database on a raw device. One ls for all of /proc's descriptors (and
# /dev/null, so that it heads each directory's list with its name even
# when there is one).
block_opener() { # <name>
	# shellcheck disable=SC2012 # ls -l's link targets are what is read
	ls -l /dev/null "$PROC"/[0-9]*/fd 2>/dev/null | awk -v d="$DEV/$1" -v proc="$PROC" '
		/^\// { n = split($0, part, "/"); pid = part[n - 1]; next }
		{ t = $NF; rest = substr(t, length(d) + 1) }
		index(t, d) == 1 && (rest == "" || rest ~ /^p?[0-9]+$/) {
			comm = ""; getline comm <(proc "/" pid "/comm"); print pid " (" comm ")"; exit
		}'
}

# Why the block device <name> (or a partition of it) is in use: mounted
# (by name, or by number: a root the kernel mounted reads /dev/root),
# swapped on, held (md, dm), open in a process (a VM's disk: QEMU opens it
# without O_EXCL), or claimed by an exclusive opener no file names (a ZFS
# pool: randread claim, O_EXCL, as the kernel sees it); nothing when it is
# not.
block_in_use() { # <name>
	local holders claim opener
	if awk -v n="$1" '{ sub("^/dev/", "", $1) } index($1, n) == 1 { found = 1 } END { exit !found }' \
		"$PROC/mounts" "$PROC/swaps"; then
		echo "mounted or swapped on"
		return
	fi
	if block_numbers "$1" | awk 'NR == FNR { mine[$1] = 1; next } $3 in mine { found = 1 }
		END { exit !found }' - "$PROC/self/mountinfo" 2>/dev/null; then
		echo "mounted"
		return
	fi
	for holders in "$WB_SYSFS/class/block/$1/holders" "$WB_SYSFS/class/block/$1"/"$1"*/holders; do
		[ -z "$(ls "$holders" 2>/dev/null)" ] || { echo "held by $(ls "$holders")"; return; }
	done
	opener=$(block_opener "$1")
	[ -z "$opener" ] || { echo "open in process $opener"; return; }
	if [ -e "$DEV/$1" ] && ! claim=$(randread "$DEV/$1" claim 2>&1); then
		echo "refused an exclusive open, as a claimed disk is ($claim)"
	fi
}

# The block device the workload reads: there, and neither mounted, swapped
# on nor held (a partition of it neither), by whatever name it is given
# (a /dev/disk/by-id/ link is its device's name here). randread opens it
# O_EXCL besides, which the kernel refuses for any of these.
refuse_block() { # <block device>
	local block=$1 name why
	name=$(readlink -f "$block" 2>/dev/null || echo "$block")
	name=${name##*/}
	[ -b "$block" ] || [ -e "$WB_SYSFS/class/block/$name" ] || refuse "no block device $block"
	why=$(block_in_use "$name")
	[ -z "$why" ] || refuse "$block (or a partition of it) is $why"
}

# A device this machine cannot do without, which even --take does not take:
# one whose disks are mounted, swapped on or held (the root file system's
# controller, say), or whose interface carries the default route (the
# session the kit was started from, often). Unbinding either can hang or
# cut off the machine; give the kit another device.
refuse_lifeline() { # <PCI address>
	local address=$1 dev=$WB_SYSFS/bus/pci/devices/$1 disk name why iface via vfs
	# A VM's or a user-space driver's device: its unbind asks the VMM to
	# hot-unplug it from the guest.
	[ "$(link_name "$dev/driver")" != vfio-pci ] ||
		refuse "$address is bound to vfio-pci (a VM's or a user-space driver's): not even --take takes it"
	# Unbinding a physical function destroys its virtual functions.
	vfs=$(cat "$dev/sriov_numvfs" 2>/dev/null || echo 0)
	[ "${vfs:-0}" = 0 ] ||
		refuse "$address has $vfs SR-IOV virtual functions, which unbinding it destroys: not even --take takes it"
	for name in $(disks_behind "$address"); do
		why=$(block_in_use "$name")
		[ -z "$why" ] || refuse "$address holds $name, which is $why: not even --take takes it"
	done
	for iface in $(interfaces_behind "$address"); do
		for name in "$iface" $(upper_interfaces "$iface"); do
			via=""
			[ "$name" = "$iface" ] || via=" (through $name)"
			! default_route_on "$name" ||
				refuse "$address's interface $iface carries the default route$via: not even --take takes it"
		done
	done
	return 0
}

# The disks the device at <PCI address> serves: those under it, and the
# head of each NVMe multipath disk one of whose paths is (native multipath
# puts the head, the disk that is mounted, under the subsystem, and only
# the hidden path nvmeXcYnZ, no /dev node, under the controller).
disks_behind() { # <PCI address>
	local disk path head
	for disk in "$WB_SYSFS"/class/block/*; do
		case $(readlink -f "$disk") in */"$1"/*) echo "${disk##*/}" ;; esac
	done
	for path in "$WB_SYSFS"/class/block/*/multipath/*; do
		[ -e "$path" ] || continue
		case $(readlink -f "$path") in */"$1"/*) ;; *) continue ;; esac
		head=${path%/multipath/*}
		echo "${head##*/}"
	done
}

# The network interfaces the device at <PCI address> serves, however deep
# under it (virtio-net's are under virtioN/, a USB NIC's under the xHCI
# controller's USB devices).
interfaces_behind() { # <PCI address>
	local net
	for net in "$WB_SYSFS"/class/net/*; do
		case $(readlink -f "$net") in */"$1"/*) echo "${net##*/}" ;; esac
	done
}

# The interfaces stacked on <interface>, however deep: the bridge, bond or
# VLAN that carries its addresses and routes.
upper_interfaces() { # <interface>
	local upper
	for upper in "$WB_SYSFS/class/net/$1"/upper_*; do
		[ -e "$upper" ] || continue
		echo "${upper##*/upper_}"
		upper_interfaces "${upper##*/upper_}"
	done
}

# Whether <interface> carries an IPv4 or IPv6 default route: destination
# 00000000 in /proc/net/route, ::/0 in /proc/net/ipv6_route.
default_route_on() { # <interface>
	awk -v i="$1" '$1 == i && $2 == "00000000" { found = 1 } END { exit !found }' \
		"$PROC/net/route" 2>/dev/null && return 0
	awk -v i="$1" '$10 == i && $1 == "00000000000000000000000000000000" && $2 == "00" { found = 1 }
		END { exit !found }' "$PROC/net/ipv6_route" 2>/dev/null
}

# The NIC pktgen sends from: there, pktgen loaded, and carrying no address
# unless <take>.
refuse_nic() { # <interface> <take>
	[ -e "$WB_SYSFS/class/net/$1" ] || refuse "no network interface $1"
	[ -e "$PROC/net/pktgen/pgctrl" ] ||
		refuse "no $PROC/net/pktgen: --nic needs pktgen (modprobe pktgen; CONFIG_NET_PKTGEN)"
	[ -z "$(ip -o addr show dev "$1" 2>/dev/null)" ] || [ -n "$2" ] ||
		refuse "$1 carries addresses (in use): --take sends on it anyway"
}
