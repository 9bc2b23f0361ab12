# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (hw-run.sh): an IOMMU mode as the type of the
# device's group (/sys/kernel/iommu_groups/N/type), set with the device
# unbound, then the device bound to dma_map_benchmark. Sourced by hw-run.sh.

# The group type each mode asks for; cm is VT-d's caching mode, a property
# of the machine (machine.json's caching_mode), no type a group can take.
mode_type() { # <mode>
	case $1 in
	"$WB_MODE_DIRECT") echo identity ;;
	"$WB_MODE_LAZY") echo DMA-FQ ;;
	"$WB_MODE_STRICT") echo DMA ;;
	"$WB_MODE_CM") refuse "mode $1 is VT-d's caching mode, a property of the machine, not a group type: machine.json records it (caching_mode)" ;;
	*) refuse "unknown mode $1 (off, lazy, strict)" ;;
	esac
}

# Set the group of the device at <sysfs device dir> to <type> and bind the
# device to dma_map_benchmark; what kept it from either goes to stdout.
set_mode() { # <type> <sysfs device dir>
	local dev=$2 address=${2##*/} group d other
	group=$(link_name "$dev/iommu_group")
	unbind_device "$dev"
	if [ "$(cat "$dev/iommu_group/type")" != "$1" ]; then
		# The kernel changes the type of a group no driver holds.
		for d in "$dev"/iommu_group/devices/*; do
			other=$(link_name "$d/driver")
			[ "${d##*/}" = "$address" ] || ! holds_group "$other" || {
				echo "group $group also holds ${d##*/}, bound to $other"
				return
			}
		done
		sysfs_write "$dev/iommu_group/type" "$1" 2>/dev/null || true
		if [ "$(cat "$dev/iommu_group/type")" != "$1" ]; then
			echo "the kernel will not set type $1 (the group is $(cat "$dev/iommu_group/type"))"
			return
		fi
	fi
	WB_DEVICE=$address bind_benchmark_device >/dev/null 2>&1 ||
		echo "dma_map_benchmark did not bind $address"
}
