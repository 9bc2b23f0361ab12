# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (hw-run.sh): machine.json, the machine, its
# kernel, the matrix and what each mode did. Sourced by hw-run.sh; reads
# WB_SYSFS, PROC, WB_CPUS, found_driver and found_type (the device before
# the kit took it) and the matrix (MODES, MAPS, GRANULES, THREADS,
# DEPTHS, SECONDS_RUN).

cpu_model() {
	awk -F': *' '/^model name/ { print $2; exit } /^CPU implementer/ && !i { i = $2 }
		/^CPU part/ && !p { p = $2 } END { if (i) print "implementer " i " part " p }' "$PROC/cpuinfo"
}

# One JSON object per IOMMU of /sys/class/iommu: VT-d's registers and the
# bits that matter here (ecap C: legacy-mode page walks snoop; ecap SMTS
# and SMPWC: scalable mode supported, whether Linux uses it or not
# (intel_iommu=sm_off), and its page walks snoop, which is the bit
# Linux reads when it runs the unit in scalable mode; cap CM: caching mode,
# the virtual-IOMMU case; ecap PT: identity possible); an SMMUv3's
# features: smmu() (COHERENCY is bit 8, arm-smmu-v3.h).
iommus() {
	sep=""
	for unit in "$WB_SYSFS"/class/iommu/*; do
		[ -e "$unit" ] || continue
		printf '%s{"name":%s' "$sep" "$(json_str "${unit##*/}")"
		if [ -f "$unit/intel-iommu/cap" ]; then
			cap=$(cat "$unit/intel-iommu/cap") ecap=$(cat "$unit/intel-iommu/ecap")
			printf ',"kind":"vt-d","version":%s,"cap":"0x%s","ecap":"0x%s"' \
				"$(json_str "$(cat "$unit/intel-iommu/version")")" "$cap" "$ecap"
			printf ',"page_walk_coherency":%s,"scalable_mode_supported":%s,"sm_page_walk_coherency":%s' \
				"$(bit "$ecap" 0)" "$(bit "$ecap" 43)" "$(bit "$ecap" 48)"
			printf ',"caching_mode":%s,"pass_through":%s' "$(bit "$cap" 7)" "$(bit "$ecap" 6)"
		elif [ -f "$unit/amd-iommu/cap" ]; then
			# cap: the PCI capability header; features: EFR:EFR2.
			printf ',"kind":"amd-vi","cap":"0x%s","features":%s' "$(cat "$unit/amd-iommu/cap")" \
				"$(json_str "$(cat "$unit/amd-iommu/features")")"
		fi
		printf '}'
		sep=,
	done
}

bit() { # <hex> <bit>: true or false
	if [ $(((0x$1 >> $2) & 1)) = 1 ]; then echo true; else echo false; fi
}

# Each SMMUv3's features, from its probe line ("arm-smmu-v3 <device>: ias
# ..., oas ... (features 0x...)"): they are in no sysfs file. An empty list
# on an arm64 machine means the kernel's log no longer holds the lines.
smmu() {
	local sep=""
	printf ',"smmuv3":['
	dmesg 2>/dev/null |
		sed -n 's/.*arm-smmu-v3 \([^ :]*\): .*(features \(0x[0-9a-f]*\)).*/\1 \2/p' |
		awk '!seen[$1]++' | {
		while read -r device features; do
			printf '%s{"device":%s,"features":"%s","coherency":%s}' "$sep" \
				"$(json_str "$device")" "$features" "$(bit "${features#0x}" 8)"
			sep=,
		done
	}
	printf ']'
}

# Every PCI device: address, IDs, driver, IOMMU group and its type.
pci_devices() {
	sep=""
	for d in "$WB_SYSFS"/bus/pci/devices/*; do
		[ -e "$d" ] || continue
		group=$(link_name "$d/iommu_group")
		printf '%s{"address":"%s","id":"%s:%s","driver":%s,"group":%s,"type":%s}' "$sep" "${d##*/}" \
			"$(cat "$d/vendor")" "$(cat "$d/device")" "$(json_str "$(link_name "$d/driver")")" \
			"${group:-null}" "$(json_str "$(domain_type "$d")")"
		sep=,
	done
}

# <out dir>/machine.json: what makes two result sets comparable
# ("machine", which hw-report compares) apart from what differs between
# kernels; the device measured, and each mode's outcome and the tool as
# far as they are known.
describe() { # <out dir> <PCI address> <modes object> <tool>
	local dev=$WB_SYSFS/bus/pci/devices/$2
	{
		printf '{"machine":{"arch":"%s","cpu":%s,"cpus":%s,"numa_nodes":%s,"iommus":[%s]%s,"device":%s},' \
			"$(uname -m)" "$(json_str "$(cpu_model)")" "$WB_CPUS" \
			"$(list_count "$(cat "$WB_SYSFS/devices/system/node/online" 2>/dev/null || echo 0)")" \
			"$(iommus)" "$(smmu)" "$(json_str "$2 $(cat "$dev/vendor" 2>/dev/null):$(cat "$dev/device" 2>/dev/null)")"
		printf '"kernel":{"release":%s,"cmdline":%s},' "$(json_str "$(uname -r)")" \
			"$(json_str "$(cat "$PROC/cmdline")")"
		printf '"matrix":{"modes":%s,"maps":%s,"granules":%s,"threads":%s,"depths":%s,"seconds":%s,"dma_bits":%s},' \
			"$(json_list "$MODES" '"')" "$(json_list "$MAPS" '"')" "$(json_list "$GRANULES" '')" \
			"$(json_list "$THREADS" '')" "$(json_list "$DEPTHS" '')" "$SECONDS_RUN" "$DMA_BITS"
		# shellcheck disable=SC2154 # hw-run.sh's
		printf '"device_found":{"driver":%s,"type":%s},' "$(json_str "$found_driver")" \
			"$(json_str "$found_type")"
		printf '"modes":{%s},"tool":%s,"kit":%s,"off_is":"the identity domain","devices":[%s]}\n' \
			"$3" "$(json_str "$4")" "$(json_str "$(cat "$KIT/VERSION" 2>/dev/null || echo unknown)")" \
			"$(pci_devices)"
	} >"$1/machine.json"
}
