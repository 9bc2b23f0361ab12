#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (issue 31): on a booted kernel, as root, run the
# guests' own bench step (and, when asked, their workload step) against a
# PCI device the person names, in each IOMMU mode the kernel lets its group
# take, and describe the machine; the device's driver, driver_override and
# group type are given back on every exit, signals included.
#
# Usage: hw-run.sh [options] <PCI address> <results dir>
#   --take            take the device (and the NIC) from the driver it has
#   --tool series|7.3 the dma_map_benchmark to run (default: the series'
#                     when the kernel takes its JSON run, else Linux 7.3's)
#   --nic <if>        also pktgen from <if>, to --dst-mac <mac> (default its
#                     own address, which no switch forwards)
#   --block <dev>     also read <dev> (randread, O_DIRECT, reads only; never
#                     a mounted or held device), at --io-depths <list> (1)
#   --restore <dir>   give back what the state file of <dir> names (after a
#                     kill -9, which no trap sees), then exit
# The matrix, from the environment as make takes it: MODES (off,lazy,strict:
# off is the identity domain here, the nearest to no translation a machine
# with its IOMMU on has), MAPS, GRANULES, THREADS (up to the CPU count;
# "cpus" is the count), DEPTHS, SECONDS; PACKETS and IO_SECONDS.
# Writes <results dir>/<mode>.log, one KTAP document per mode as a guest's
# console (report.py and guest-results.py read it), and machine.json.
# Exit 0: every run passed; 2: refused, the device untouched; 3: it ran,
# but a mode could not be set or a run failed (machine.json says which).
# WB_SYSFS and WB_PROC root /sys and /proc, for tests on a fake tree
# (tests/hw/; WB_SYSFS_HOOK plays the kernel there).
set -eu

# The kit: wb/ beside this script holds the guest's scripts, bin/ the tools;
# in a guest this script is /wb/hw-run.sh itself, beside them.
KIT=$(cd "$(dirname "$0")" && pwd)
if [ -z "${WB_DIR:-}" ]; then
	if [ -f "$KIT/wb/lib.sh" ]; then WB_DIR=$KIT/wb; else WB_DIR=$KIT; fi
fi
[ ! -d "$KIT/bin" ] || PATH=$KIT/bin:$PATH
export WB_DIR PATH
# shellcheck source=guest/lib.sh
. "$WB_DIR/lib.sh"
# shellcheck source=guest/counters.sh
. "$WB_DIR/counters.sh"
PROC=${WB_PROC:-/proc}
export WB_SYSFS

# Internal: one mode's KTAP document, as guest/init prints a job's, run in
# a session of its own so that a signal to the runner can end all of it.
if [ "${1:-}" = --document ]; then
	# shellcheck disable=SC2086 # a list
	set -- $2
	printf '%s\n%s\n' "$(ktap_print_header)" \
		"${WB_JOB_MARKER}hw kernel=$(uname -r) arch=$(uname -m) cpus=$WB_CPUS"
	ktap_set_plan $#
	for step; do
		ktap_subtest "$step" "$WB_DIR/steps/$step.sh"
	done
	rc=0
	# shellcheck disable=SC2031 # ktap_subtest counts here
	[ "$KTAP_CNT_FAIL" = 0 ] || rc=1
	echo "$WB_END_MARKER$rc"
	exit "$rc"
fi

say() { printf 'hw-run: %s\n' "$*" >&2; }
# A refusal touches nothing: said, and exit 2.
refuse() { say "refused: $*"; exit 2; }

# How many numbers a sysfs list ("0-3,8") holds.
list_count() { # <list>
	echo "$1" | tr , '\n' | awk -F- 'NF == 2 { n += $2 - $1 + 1; next } NF == 1 { n++ } END { print n + 0 }'
}

# The last part of a symbolic link's target, empty if there is none.
link_name() { # <path>
	if [ -L "$1" ]; then basename "$(readlink "$1")"; fi
}

json_str() { # <text>: a JSON string
	printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

json_list() { # <comma-separated words> <quote>: a JSON array
	echo "$1" | awk -F, -v q="$2" '{ for (i = 1; i <= NF; i++) printf "%s%s%s%s", (i > 1 ? "," : ""), q, $i, q }
		END { printf "\n" }' | sed 's/^/[/; s/$/]/'
}

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

# ---- options ----
take="" tool="" nic="" dst_mac="" block="" io_depths=1 restore_dir=""
while [ $# -gt 0 ]; do
	case $1 in
	--take) take=1 ;;
	--tool) tool=$2; shift ;;
	--nic) nic=$2; shift ;;
	--dst-mac) dst_mac=$2; shift ;;
	--block) block=$2; shift ;;
	--io-depths) io_depths=$2; shift ;;
	--restore) restore_dir=$2; shift ;;
	--*) refuse "unknown option $1" ;;
	*) break ;;
	esac
	shift
done

# ---- giving back ----
STATE_FILE=""
child=""
# Everything this run changed, undone; safe to call twice. The state is in
# a file so that --restore can do the same after a kill -9.
restore() {
	[ -n "$STATE_FILE" ] && [ -f "$STATE_FILE" ] || return 0
	# Give back all there is to give back, whatever fails on the way.
	set +e
	# shellcheck source=/dev/null disable=SC2154 # saved_*: the state file's
	. "$STATE_FILE"
	if [ -n "$child" ]; then
		# shellcheck disable=SC2046 # a list
		kill -s TERM $(session_pids "$child") 2>/dev/null
		wait "$child" 2>/dev/null
		child=""
	fi
	counters_teardown
	# shellcheck disable=SC2154 # the state file's
	dev=$WB_SYSFS/bus/pci/devices/$saved_device
	# Unbinding dma_map_benchmark ends a run in progress (ENODEV).
	unbind_device "$dev"
	if [ -n "$saved_type" ] && [ "$(cat "$dev/iommu_group/type")" != "$saved_type" ]; then
		sysfs_write "$dev/iommu_group/type" "$saved_type" 2>/dev/null ||
			say "could not give group $(link_name "$dev/iommu_group") its type $saved_type back"
	fi
	# An empty write clears driver_override, which reads "(null)" then.
	# shellcheck disable=SC2154 # the state file's
	if [ "$saved_override" = "(null)" ]; then
		sysfs_write "$dev/driver_override" "" || true
	else
		sysfs_write "$dev/driver_override" "$saved_override" || true
	fi
	if [ -n "$saved_driver" ]; then
		sysfs_write "$WB_SYSFS/bus/pci/drivers_probe" "$saved_device" 2>/dev/null || true
		if [ "$(link_name "$dev/driver")" != "$saved_driver" ]; then
			say "$saved_device is not back on $saved_driver: echo $saved_device >/sys/bus/pci/drivers/$saved_driver/bind"
			rm -f "$STATE_FILE"
			return 1
		fi
	fi
	rm -f "$STATE_FILE"
	say "$saved_device given back (driver ${saved_driver:-none}, driver_override $saved_override, type ${saved_type:-none})"
}

# The processes of session <sid> (the real /proc's: they are this run's),
# what timeout moved into process groups of their own among them.
session_pids() { # <sid>
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v sid="$1" '{ pid = $1; sub(/.*\) /, ""); if ($4 == sid) print pid }'
}

unbind_device() { # <sysfs device dir>
	[ -e "$1/driver" ] || return 0
	sysfs_write "$1/driver/unbind" "${1##*/}"
}

if [ -n "$restore_dir" ]; then
	STATE_FILE=$restore_dir/restore.state
	[ -f "$STATE_FILE" ] || refuse "no $STATE_FILE: nothing to give back"
	restore
	exit
fi

[ $# = 2 ] || refuse "usage: hw-run.sh [--take] [--tool series|7.3] [--nic <if> [--dst-mac <mac>]] [--block <dev> [--io-depths <list>]] <PCI address> <results dir>"
address=$1 out=$2
dev=$WB_SYSFS/bus/pci/devices/$address
[ "$WB_SYSFS" != /sys ] || [ "$(id -u)" = 0 ] || refuse "run me as root"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---- the machine ----
WB_CPUS=$(list_count "$(cat "$WB_SYSFS/devices/system/cpu/online")")
export WB_CPUS
MODES=${MODES:-$WB_MODE_DIRECT,$WB_MODE_LAZY,$WB_MODE_STRICT}
MAPS=${MAPS:-single} GRANULES=${GRANULES:-1,16,64,256,1024} THREADS=${THREADS:-1,2}
# SECONDS as make names it: a plain variable in dash and busybox sh.
# shellcheck disable=SC3028
DEPTHS=${DEPTHS:-1,64} SECONDS_RUN=${SECONDS:-1}
THREADS=$(echo "$THREADS" | sed "s/cpus/$WB_CPUS/g")
for t in $(echo "$THREADS" | tr , ' '); do
	[ "$t" -le "$WB_CPUS" ] || refuse "THREADS=$THREADS: $t threads on $WB_CPUS CPUs"
done
for mode in $(echo "$MODES" | tr , ' '); do mode_type "$mode" >/dev/null; done

cpu_model() {
	awk -F': *' '/^model name/ { print $2; exit } /^CPU implementer/ && !i { i = $2 }
		/^CPU part/ && !p { p = $2 } END { if (i) print "implementer " i " part " p }' "$PROC/cpuinfo"
}

# One JSON object per IOMMU of /sys/class/iommu: VT-d's registers and the
# bits that matter here (ecap C: page walks snoop; cap CM: caching mode,
# the virtual-IOMMU case; ecap PT: identity possible); an SMMUv3's
# features from its probe line (COHERENCY is bit 8, arm-smmu-v3.h).
iommus() {
	sep=""
	for unit in "$WB_SYSFS"/class/iommu/*; do
		[ -e "$unit" ] || continue
		printf '%s{"name":%s' "$sep" "$(json_str "${unit##*/}")"
		if [ -f "$unit/intel-iommu/cap" ]; then
			cap=$(cat "$unit/intel-iommu/cap") ecap=$(cat "$unit/intel-iommu/ecap")
			printf ',"kind":"vt-d","version":%s,"cap":"0x%s","ecap":"0x%s"' \
				"$(json_str "$(cat "$unit/intel-iommu/version")")" "$cap" "$ecap"
			printf ',"page_walk_coherency":%s,"caching_mode":%s,"pass_through":%s' \
				"$(bit "$ecap" 0)" "$(bit "$cap" 7)" "$(bit "$ecap" 6)"
		fi
		printf '}'
		sep=,
	done
}

bit() { # <hex> <bit>: true or false
	if [ $(((0x$1 >> $2) & 1)) = 1 ]; then echo true; else echo false; fi
}

smmu() {
	features=$(dmesg 2>/dev/null | sed -n 's/.*arm-smmu-v3.*(features \(0x[0-9a-f]*\)).*/\1/p' | head -n 1)
	[ -n "$features" ] || return 0
	printf ',"smmuv3":{"features":"%s","coherency":%s}' "$features" "$(bit "${features#0x}" 8)"
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

# machine.json: what makes two result sets comparable ("machine", which
# hw-report compares) apart from what differs between kernels.
describe() { # <modes object> <tool>
	{
		printf '{"machine":{"arch":"%s","cpu":%s,"cpus":%s,"numa_nodes":%s,"iommus":[%s]%s,"device":%s},' \
			"$(uname -m)" "$(json_str "$(cpu_model)")" "$WB_CPUS" \
			"$(list_count "$(cat "$WB_SYSFS/devices/system/node/online" 2>/dev/null || echo 0)")" \
			"$(iommus)" "$(smmu)" "$(json_str "$address $(cat "$dev/vendor" 2>/dev/null):$(cat "$dev/device" 2>/dev/null)")"
		printf '"kernel":{"release":%s,"cmdline":%s},' "$(json_str "$(uname -r)")" \
			"$(json_str "$(cat "$PROC/cmdline")")"
		printf '"matrix":{"modes":%s,"maps":%s,"granules":%s,"threads":%s,"depths":%s,"seconds":%s},' \
			"$(json_list "$MODES" '"')" "$(json_list "$MAPS" '"')" "$(json_list "$GRANULES" '')" \
			"$(json_list "$THREADS" '')" "$(json_list "$DEPTHS" '')" "$SECONDS_RUN"
		printf '"modes":{%s},"tool":%s,"off_is":"the identity domain","devices":[%s]}\n' \
			"$1" "$(json_str "$2")" "$(pci_devices)"
	} >"$out/machine.json"
}

describe "" ""

# ---- refusals: nothing is touched before all of them ----
[ -e "$dev" ] || refuse "no PCI device $address"
[ -e "$dev/iommu_group" ] ||
	refuse "$address is in no IOMMU group: this machine has no IOMMU, or it is off (machine.json)"
driver=$(link_name "$dev/driver")
[ -z "$driver" ] || [ -n "$take" ] ||
	refuse "$address is in use by driver $driver: --take takes it (it is given back at the end)"
[ -d "$WB_SYSFS/bus/pci/drivers/dma_map_benchmark" ] ||
	refuse "this kernel has no dma_map_benchmark driver (CONFIG_DMA_MAP_BENCHMARK)"
if [ -n "$block" ]; then
	name=${block##*/}
	[ -b "$block" ] || [ -e "$WB_SYSFS/class/block/$name" ] || refuse "no block device $block"
	! awk -v n="$name" '{ sub("^/dev/", "", $1) } index($1, n) == 1 { found = 1 } END { exit !found }' \
		"$PROC/mounts" "$PROC/swaps" || refuse "$block (or a partition of it) is mounted or swapped on"
	[ -z "$(ls "$WB_SYSFS/class/block/$name/holders" 2>/dev/null)" ] ||
		refuse "$block is held by $(ls "$WB_SYSFS/class/block/$name/holders")"
fi
if [ -n "$nic" ]; then
	[ -e "$WB_SYSFS/class/net/$nic" ] || refuse "no network interface $nic"
	[ -z "$(ip -o addr show dev "$nic" 2>/dev/null)" ] || [ -n "$take" ] ||
		refuse "$nic carries addresses (in use): --take sends on it anyway"
fi
# dma_map_benchmark's runs go through debugfs.
[ "$WB_SYSFS" != /sys ] || grep -q ' /sys/kernel/debug debugfs ' "$PROC/mounts" ||
	mount -t debugfs debugfs /sys/kernel/debug

# ---- from here on, everything is given back ----
STATE_FILE=$out/restore.state
group=$(link_name "$dev/iommu_group")
cat >"$STATE_FILE" <<EOF
saved_device='$address'
saved_driver='$driver'
saved_override='$(cat "$dev/driver_override")'
saved_type='$(cat "$dev/iommu_group/type")'
EOF
trap 'restore || exit 1' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# Set the device's group to <type> and bind the device to
# dma_map_benchmark; what kept it from either goes to stdout.
set_mode() { # <type>
	local d other
	unbind_device "$dev"
	if [ "$(cat "$dev/iommu_group/type")" != "$1" ]; then
		# The kernel changes the type of a group no driver holds.
		for d in "$dev"/iommu_group/devices/*; do
			other=$(link_name "$d/driver")
			[ "${d##*/}" = "$address" ] || [ -z "$other" ] || {
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

# The tool the bench step runs: the series' when this kernel takes its
# JSON run, else Linux 7.3's under the same name, first on PATH.
choose_tool() {
	if [ -z "$tool" ]; then
		tool=7.3
		timeout -k 5 30 dma_map_benchmark -j -s 1 -t 1 -g 1 >/dev/null 2>&1 && tool=series
	fi
	case $tool in
	series) ;;
	7.3)
		mkdir -p "$out/bin"
		ln -sf "$(command -v dma_map_benchmark-7.3)" "$out/bin/dma_map_benchmark"
		PATH=$out/bin:$PATH ;;
	*) refuse "--tool $tool: series or 7.3" ;;
	esac
}

steps=bench
[ -z "$nic$block" ] || steps="bench workload"
workloads=""
[ -z "$nic" ] || workloads=net
[ -z "$block" ] || workloads="${workloads:+$workloads,}nvme"
WB_ARGS="wb.maps=$MAPS wb.granules=$GRANULES wb.threads=$THREADS wb.depths=$DEPTHS"
WB_ARGS="$WB_ARGS wb.seconds=$SECONDS_RUN wb.workloads=$workloads wb.nic=$nic wb.block=$block"
WB_ARGS="$WB_ARGS wb.io_depths=$io_depths wb.packets=${PACKETS:-20000}"
[ -z "$dst_mac" ] || WB_ARGS="$WB_ARGS wb.dst_mac=$dst_mac"
export WB_ARGS WB_DEVICE=$address

status=0 modes_json="" sep="" tool_chosen=""
for mode in $(echo "$MODES" | tr , ' '); do
	type=$(mode_type "$mode")
	problem=$(set_mode "$type")
	if [ -n "$problem" ]; then
		say "mode $mode ($type) not set: $problem"
		modes_json="$modes_json$sep\"$mode\":{\"type\":\"$type\",\"not_set\":$(json_str "$problem")}"
		sep=, status=3
		rm -f "$out/$mode.log"
		continue
	fi
	[ -n "$tool_chosen" ] || choose_tool
	tool_chosen=1
	say "mode $mode ($type): $out/$mode.log"
	rc=0
	setsid sh "$0" --document "$steps" >"$out/$mode.log" 2>&1 &
	child=$!
	wait "$child" || rc=$?
	child=""
	[ "$rc" = 0 ] || status=3
	modes_json="$modes_json$sep\"$mode\":{\"type\":\"$type\",\"rc\":$rc}"
	sep=,
done
describe "$modes_json" "$tool"
exit "$status"
