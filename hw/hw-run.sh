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
#   --take            take the device from the driver it has (and send on a
#                     --nic that carries addresses)
#   --tool series|7.3 the dma_map_benchmark to run (default: the series'
#                     when the kernel takes its JSON run, else Linux 7.3's)
#   --nic <if>        also pktgen from <if>, to --dst-mac <mac> (default its
#                     own address, which no switch forwards)
#   --block <dev>     also read <dev> (randread, O_DIRECT, reads only; never
#                     a mounted or held device), at --io-depths <list> (1)
#   --restore <PCI address>
#                     give back what a run left in the device's state file
#                     (after a kill -9, which no trap sees), then exit
# The matrix, from the environment as make takes it: MODES (off,lazy,strict:
# off is the identity domain here, the nearest to no translation a machine
# with its IOMMU on has), MAPS, GRANULES, THREADS (up to the CPU count;
# "cpus" is the count), DEPTHS, RUN_SECONDS (make's SECONDS: bash, which
# is /bin/sh on some distributions, counts its own SECONDS; the reads run
# as long), DMA_BITS (the device's DMA mask for the tool, 64: with the
# tool's default of 32, off's identity domain would bounce every page above
# 4 GiB through swiotlb, and fail above 256 KiB), PACKETS.
# Writes <results dir>/<mode>.log, one KTAP document per mode as a guest's
# console (report.py and guest-results.py read it), and machine.json.
# Exit 0: every run passed; 2: refused, the device untouched; 3: it ran,
# but a mode could not be set or a run failed (machine.json says which);
# 1: something could not be given back (said; the state file stays, for
# --restore); 143, 130, 129, 131, 141: ended by SIGTERM, SIGINT, SIGHUP,
# SIGQUIT, SIGPIPE, given back.
# WB_SYSFS and WB_PROC root /sys and /proc, for tests on a fake tree
# (tests/hw/; WB_SYSFS_HOOK plays the kernel there).
# This is the driver; lib/ beside it does the work, one job a file:
# common.sh (saying, refusing, JSON), describe.sh (machine.json),
# refusals.sh (all checked before anything is touched), bind.sh (the state
# file, the traps, giving back), modes.sh (group types, binding to
# dma_map_benchmark), runs.sh (one mode's document, its steps, the tool).
set -eu

# The kit: wb/ beside this script holds the guest's scripts, bin/ the tools,
# lib/ the runner's parts; in a guest this script is /wb/hw-run.sh itself,
# beside the guest's scripts and lib/.
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
# shellcheck source=hw/lib/common.sh
. "$KIT/lib/common.sh"
# shellcheck source=hw/lib/describe.sh
. "$KIT/lib/describe.sh"
# shellcheck source=hw/lib/refusals.sh
. "$KIT/lib/refusals.sh"
# shellcheck source=hw/lib/bind.sh
. "$KIT/lib/bind.sh"
# shellcheck source=hw/lib/modes.sh
. "$KIT/lib/modes.sh"
# shellcheck source=hw/lib/runs.sh
. "$KIT/lib/runs.sh"
PROC=${WB_PROC:-/proc} DEV=${WB_DEV:-/dev}
export WB_SYSFS

# Internal: one mode's KTAP document (lib/runs.sh).
[ "${1:-}" != --document ] || document "$2"

# ---- options ----
take="" tool="" nic="" dst_mac="" block="" io_depths=1 restore_address=""
while [ $# -gt 0 ]; do
	case $1 in
	--take) take=1 ;;
	--tool) tool=$2; shift ;;
	--nic) nic=$2; shift ;;
	--dst-mac) dst_mac=$2; shift ;;
	--block) block=$2; shift ;;
	--io-depths) io_depths=$2; shift ;;
	--restore) restore_address=$2; shift ;;
	--*) refuse "unknown option $1" ;;
	*) break ;;
	esac
	shift
done

# What a run holds, per device, outside any results directory: a second
# run, or one into another directory, must not take the kit's own leftover
# binding for the device's own.
STATE_DIR=${WB_STATE_DIR:-/run/wb-hw-kit}
if [ -n "$restore_address" ]; then
	[ "$WB_SYSFS" != /sys ] || [ "$(id -u)" = 0 ] || refuse "run me as root"
	STATE_FILE=$STATE_DIR/$restore_address.state
	[ -f "$STATE_FILE" ] || refuse "no $STATE_FILE: nothing to give back"
	# The state file is there for the whole of a run: --restore is for a
	# run that is gone, not one whose next mode would take the device again.
	runner=$(live_runner "$STATE_FILE")
	[ -z "$runner" ] ||
		refuse "the run of pid $runner still holds $restore_address: kill -TERM $runner ends it and gives everything back"
	restore
	exit
fi

case $tool in "" | series | 7.3) ;; *) refuse "--tool $tool: series or 7.3" ;; esac
[ $# = 2 ] || refuse "usage: hw-run.sh [--take] [--tool series|7.3] [--nic <if> [--dst-mac <mac>]] [--block <dev> [--io-depths <list>]] <PCI address> <results dir>"
address=$1 out=$2
dev=$WB_SYSFS/bus/pci/devices/$address
[ "$WB_SYSFS" != /sys ] || [ "$(id -u)" = 0 ] || refuse "run me as root"
state=$STATE_DIR/$address.state
if [ -e "$state" ]; then
	runner=$(live_runner "$state")
	[ -z "$runner" ] || refuse "the run of pid $runner holds $address now: wait for it, or kill -TERM $runner"
	refuse "a run left $address held ($state): hw-run.sh --restore $address first"
fi
# hw-report reads every <mode>.log of a directory: one run's results each.
# A refused run leaves only machine.json, which the next run rewrites.
for earlier in "$out"/*.log; do
	[ ! -e "$earlier" ] || refuse "$out holds an earlier run's results ($earlier): name another directory"
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---- the machine and the matrix ----
WB_CPUS=$(list_count "$(cat "$WB_SYSFS/devices/system/cpu/online")")
export WB_CPUS
MODES=${MODES:-$WB_MODE_DIRECT,$WB_MODE_LAZY,$WB_MODE_STRICT}
MAPS=${MAPS:-single} GRANULES=${GRANULES:-1,16,64,256,1024} THREADS=${THREADS:-1,2}
DEPTHS=${DEPTHS:-1,64} SECONDS_RUN=${RUN_SECONDS:-1} DMA_BITS=${DMA_BITS:-64}
case $SECONDS_RUN in '' | *[!0-9]* | 0) refuse "RUN_SECONDS=$SECONDS_RUN: a whole number of seconds, 1 or more" ;; esac
case $DMA_BITS in
2[0-9] | [3-5][0-9] | 6[0-4]) ;;
*) refuse "DMA_BITS=$DMA_BITS: a DMA mask's width in bits, 20 to 64" ;;
esac
THREADS=$(echo "$THREADS" | sed "s/cpus/$WB_CPUS/g")
refuse_matrix
# The device as the machine had it: the end's description finds it the kit's.
found_driver=$(link_name "$dev/driver") found_type=$(cat "$dev/iommu_group/type" 2>/dev/null || true)
describe "$out" "$address" "" ""

# ---- refusals: nothing is touched before all of them ----
refuse_device "$address" "$take"
refuse_shared "$address"
[ -z "$block" ] || refuse_block "$block"
[ -z "$nic" ] || refuse_nic "$nic" "$take"
# The probes, the trace and tracing_on are the machine's, not the device's:
# one run at a time, or one would give back what the other still uses.
for held in "$STATE_DIR"/*.state; do
	[ ! -e "$held" ] ||
		refuse "another run holds ${held##*/} ($held): one run at a time, its counters count the whole machine"
done

# ---- from here on, everything is given back ----
mkdir -p "$STATE_DIR"
hold_device "$dev" "$state"
[ -z "$nic" ] || hold_nic "$nic"
steps=$(run_steps "$nic" "$block")
step_args "$nic" "$dst_mac" "$block" "$io_depths"
export WB_DEVICE="$address"

status=0 modes_json="" sep="" tool_chosen=""
for mode in $(echo "$MODES" | tr , ' '); do
	still_held "$state"
	type=$(mode_type "$mode")
	problem=$(set_mode "$type" "$dev")
	if [ -n "$problem" ]; then
		say "mode $mode ($type) not set: $problem"
		modes_json="$modes_json$sep\"$mode\":{\"type\":\"$type\",\"not_set\":$(json_str "$problem")}"
		sep=, status=3
		rm -f "$out/$mode.log"
		continue
	fi
	[ -n "$tool_chosen" ] || choose_tool "$out"
	tool_chosen=1
	say "mode $mode ($type): $out/$mode.log"
	rc=0
	setsid sh "$0" --document "$steps" >"$out/$mode.log" 2>&1 &
	child=$!
	# A kill -9 leaves this session running: --restore ends it.
	state_add "saved_session='$child'"
	wait "$child" || rc=$?
	child=""
	[ "$rc" = 0 ] || status=3
	modes_json="$modes_json$sep\"$mode\":{\"type\":\"$type\",\"rc\":$rc}"
	sep=,
done
still_held "$state"
describe "$out" "$address" "$modes_json" "$tool"
exit "$status"
