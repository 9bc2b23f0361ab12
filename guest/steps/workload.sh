#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The workload step: traffic through real, unmodified drivers whose DMA goes
# through the IOMMU, one test each, its numbers as a JSON object
# ("workload") on a diagnostic line before its result:
#   - pktgen transmitting from the first NIC of each pair (e1000e: a mapping
#     per packet; virtio-net with iommu_platform=on: virtqueue buffers) to
#     the second, which QEMU's hub hands every frame: transmit and receive
#     packets per second, 64 and 1500 bytes;
#   - when asked (wb.io_depths=), 4 KiB random reads with O_DIRECT from
#     the NVMe namespace at those queue depths (randread): IOPS.
# wb.workloads= names the kinds that run, comma-separated: net, nvme
# (default both). On hardware (hw/hw-run.sh) wb.nic= names the one NIC
# pktgen sends from, to wb.dst_mac= (default its own address, which a
# switch never forwards), nothing counting what arrives; wb.block= names
# the block device read.
# A device no driver bound, a link that stays down, a run that stalls or
# moves nothing fails its test and says why ("failed"), never a zero.
set -eu
# shellcheck source=guest/lib.sh
. "${WB_DIR:-/wb}/lib.sh"

PKTGEN=${WB_PROC:-/proc}/net/pktgen
PACKETS=$(wb_arg packets 20000)
SECONDS_IO=$(wb_arg seconds 1)
# Time limits: a read run's seconds and a minute; pktgen, a minute and a
# second per 1000 frames (TCG sends about 70000 a second of guest time).
RUN_LIMIT=$((SECONDS_IO + 60))
PKTGEN_LIMIT=$((60 + PACKETS / 1000))

# The network interface of each PCI device <vendor>:<device>, by address
# ("-" for one without); a virtio device's is on its virtio child.
interfaces() { # <vendor> <device>
	local found
	for dev in "$WB_SYSFS"/bus/pci/devices/*; do
		[ "$(cat "$dev/vendor")" = "$1" ] || continue
		[ "$(cat "$dev/device")" = "$2" ] || continue
		found=-
		for net in "$dev"/net/* "$dev"/virtio*/net/*; do
			[ ! -e "$net" ] || found=${net##*/}
		done
		echo "$found"
	done
}

# Bring <interface> up and wait up to 10 s for its carrier.
link_up() { # <interface>
	ip link set dev "$1" up || return 1
	for _ in $(seq 100); do
		[ "$(cat "$WB_SYSFS/class/net/$1/carrier" 2>/dev/null)" != 1 ] || return 0
		sleep 0.1
	done
	return 1
}

# The test <name> failed because of <reason>.
fail() { # <name> <reason>
	workload_object "$1" "\"failed\":\"$2\""
	ktap_test_fail "$1"
}

pktgen_set() { # <interface> <command>
	echo "$2" >"$PKTGEN/$1"
}

# pktgen sends $PACKETS frames of <size> bytes from <tx> to <rx>'s MAC;
# prints "<microseconds> <frames sent> <frames received by rx>". Without a
# receiver (rx "-": hardware), to wb.dst_mac=, and "-" received.
pktgen_run() { # <tx> <rx> <size>
	local rx_mac before=0 after=0 result
	if [ "$2" = - ]; then
		rx_mac=$(wb_arg dst_mac "$(cat "$WB_SYSFS/class/net/$1/address")")
	else
		rx_mac=$(cat "$WB_SYSFS/class/net/$2/address")
	fi
	echo rem_device_all >"$PKTGEN/kpktgend_0"
	echo "add_device $1" >"$PKTGEN/kpktgend_0"
	pktgen_set "$1" "count $PACKETS"
	pktgen_set "$1" "pkt_size $3"
	pktgen_set "$1" "clone_skb 0"
	pktgen_set "$1" "delay 0"
	pktgen_set "$1" "dst 10.0.0.2"
	pktgen_set "$1" "dst_mac $rx_mac"
	[ "$2" = - ] || before=$(cat "$WB_SYSFS/class/net/$2/statistics/rx_packets")
	timeout -k 5 "$PKTGEN_LIMIT" sh -c "echo start >$PKTGEN/pgctrl" || return 1
	[ "$2" = - ] || after=$(cat "$WB_SYSFS/class/net/$2/statistics/rx_packets")
	# "Result: OK: 1234(c1200+d34) usec, 20000 (64byte,0frags)"
	result=$(sed -n 's/^Result: OK: \([0-9]*\)(.*usec, \([0-9]*\) .*/\1 \2/p' "$PKTGEN/$1")
	[ -n "$result" ] || return 1
	if [ "$2" = - ]; then echo "$result -"; else echo "$result $((after - before))"; fi
}

# One pktgen test on hardware: the named NIC sends <size>-byte frames;
# what its driver's transmit path maps is what is measured.
nic_test() { # <interface> <size>
	local driver name result usec sent
	driver=$(basename "$(readlink "$WB_SYSFS/class/net/$1/device/driver" || echo "$1")")
	name="$driver pktgen $2 B"
	if ! link_up "$1"; then
		fail "$name" "the link of $1 stays down"
		return
	fi
	if ! result=$(pktgen_run "$1" - "$2") || [ -z "$result" ]; then
		fail "$name" "pktgen on $1 stalled or failed"
		return
	fi
	usec=$(echo "$result" | cut -d' ' -f1)
	sent=$(echo "$result" | cut -d' ' -f2)
	if [ "$sent" = 0 ] || [ "$usec" = 0 ]; then
		fail "$name" "$sent frames sent"
		return
	fi
	workload_object "$name" "\"driver\":\"$driver\",\"interface\":\"$1\",\"size\":$2,\"sent\":$sent,\"usec\":$usec,\"tx_pps\":$((sent * 1000000 / usec))"
	ktap_test_pass "$name"
}

# One pktgen test: <driver>'s pair of <vendor>:<device>, <size>-byte frames.
net_test() { # <driver> <vendor> <device> <size>
	local name="$1 pktgen $4 B" tx rx result usec sent received
	# shellcheck disable=SC2046 # two words
	set -- "$@" $(interfaces "$2" "$3")
	tx=${5:-} rx=${6:-}
	if [ -z "$tx" ] || [ -z "$rx" ] || [ "$tx" = - ] || [ "$rx" = - ]; then
		fail "$name" "two $1 devices ($2:$3) with a bound driver are needed"
		return
	fi
	if ! link_up "$tx" || ! link_up "$rx"; then
		fail "$name" "the link of $tx or $rx stays down"
		return
	fi
	if ! result=$(pktgen_run "$tx" "$rx" "$4") || [ -z "$result" ]; then
		fail "$name" "pktgen on $tx stalled or failed"
		return
	fi
	usec=$(echo "$result" | cut -d' ' -f1)
	sent=$(echo "$result" | cut -d' ' -f2)
	received=$(echo "$result" | cut -d' ' -f3)
	if [ "$sent" = 0 ] || [ "$received" = 0 ] || [ "$usec" = 0 ]; then
		fail "$name" "$sent frames sent, $received received"
		return
	fi
	workload_object "$name" "\"driver\":\"$1\",\"device\":\"$2:$3\",\"size\":$4,\"sent\":$sent,\"received\":$received,\"usec\":$usec,\"tx_pps\":$((sent * 1000000 / usec)),\"rx_pps\":$((received * 1000000 / usec))"
	ktap_test_pass "$name"
}

# One storage test: randread at queue depth <depth> on the NVMe namespace
# (on hardware, the block device wb.block= names, reads only).
io_test() { # <depth>
	local name="$IO_NAME randread 4 KiB qd $1" out attempt
	if [ ! -b "$IO_DEVICE" ]; then
		fail "$name" "no block device $IO_DEVICE (the $IO_NAME device has no bound driver?)"
		return
	fi
	# QEMU 7.2's NVMe model now and then loses a completion at depth 32
	# (the driver's I/O timeout fires): one more attempt, counted.
	for attempt in 1 2; do
		! out=$(timeout -k 5 "$RUN_LIMIT" randread "$IO_DEVICE" "$1" "$SECONDS_IO" 2>&1) ||
			break
		ktap_print_msg "attempt $attempt: $out"
		if [ "$attempt" = 2 ]; then
			fail "$name" "randread failed or stalled twice"
			return
		fi
	done
	# randread's object, its members after the driver's and the attempts
	out=${out#\{}
	workload_object "$name" "\"driver\":\"$IO_NAME\",\"attempts\":$attempt,${out%\}}"
	ktap_test_pass "$name"
}

# The reads run only when asked (wb.io_depths=1,32): under -icount an idle
# guest's clock jumps to its next timer while QEMU completes a read on a
# host thread, so their IOPS count timer ticks, and QEMU 7.2's NVMe model
# loses completions at depth 32 in some runs, the same ones each time.
IO_DEPTHS=$(wb_arg io_depths | tr , ' ')
# The kinds wb.workloads= names (make check's debug kernel has no network
# stack: wb.workloads=nvme); a word that names none fails the step.
NET_TESTS="" NVME=""
for kind in $(wb_arg workloads net,nvme | tr , ' '); do
	case $kind in
	net) NET_TESTS="e1000e:0x8086:0x10d3 virtio_net:0x1af4:0x1041" ;;
	nvme) NVME=1 ;;
	*)
		echo "# wb.workloads=: unknown workload kind '$kind' (net, nvme)"
		exit 1
		;;
	esac
done
[ -n "$NVME" ] || IO_DEPTHS=""
IO_DEVICE=$(wb_arg block /dev/nvme0n1)
IO_NAME=nvme
[ "$IO_DEVICE" = /dev/nvme0n1 ] || IO_NAME=${IO_DEVICE##*/}
NIC=""
[ -z "$NET_TESTS" ] || NIC=$(wb_arg nic)
# The named NIC's test name: its driver's, as net_test names a pair's.
[ -z "$NIC" ] || NET_TESTS="$(basename "$(readlink "$WB_SYSFS/class/net/$NIC/device/driver" || echo "$NIC")")"
# shellcheck disable=SC2086 # a list
set -- $IO_DEPTHS
# The plan, as JSON too: the report fails a workload it never saw.
plan="" tests=0
for size in 64 1500; do
	for nic in $NET_TESTS; do
		plan="$plan,\"${nic%%:*} pktgen $size B\"" tests=$((tests + 1))
	done
done
# Without depths, the reads are planned as one skipped test.
reads_skipped=""
[ -z "$NVME" ] || [ $# != 0 ] || reads_skipped=1
if [ -n "$reads_skipped" ]; then plan="$plan,\"$IO_NAME randread 4 KiB\"" tests=$((tests + 1)); fi
for depth; do plan="$plan,\"$IO_NAME randread 4 KiB qd $depth\"" tests=$((tests + 1)); done
plan_object "[${plan#,}]"
ktap_set_plan "$tests"
for size in 64 1500; do
	if [ -n "$NIC" ]; then
		nic_test "$NIC" "$size"
		continue
	fi
	for nic in $NET_TESTS; do
		IFS=: read -r driver vendor device <<-EOF
			$nic
		EOF
		net_test "$driver" "$vendor" "$device" "$size"
	done
done
if [ -n "$reads_skipped" ]; then
	workload_object "$IO_NAME randread 4 KiB" \
		"\"skipped\":\"not asked for (wb.io_depths): timer-bound under -icount\""
	ktap_test_skip "$IO_NAME randread 4 KiB"
fi
for depth; do
	io_test "$depth"
done
ktap_finished
