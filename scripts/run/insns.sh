#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Count the instructions of single dma_map_page_attrs() and
# dma_unmap_page_attrs() calls of WB_INSNS_GRANULE pages (one by default),
# function by function: boot <kernel> in
# <mode> on one vCPU under -icount with QEMU's gdbstub and the trace job,
# have gdb single-step a few calls (scripts/run/insns-gdb.py) into <out>.json,
# then stop the guest. The console is <out>.log, gdb's output <out>.gdb.
# Usage: insns.sh <mode> <kernel> <vmlinux> <initramfs> <out>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# = 5 ] || die "usage: insns.sh <mode> <kernel> <vmlinux> <initramfs> <out>"
mode=$1 kernel=$2 vmlinux=$3 initrd=$4 out=$5
[ -f "$vmlinux" ] || die "no $vmlinux: build the kernel first"
mkdir -p "$(dirname "$out")"
rm -f "$out.json" "$out.log" "$out.gdb"
run=$(mktemp -d)
stop_guest() {
	[ ! -s "$run/qemu.pid" ] || kill "$(cat "$run/qemu.pid")" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$run"
}
trap stop_guest EXIT

# boot.sh reports the guest as killed when it is stopped below: its verdict
# does not count here, the trace does.
WB_SMP=1 WB_ICOUNT=1 WB_QEMU_ARGS="-gdb unix:$run/gdb,server=on,wait=off -pidfile $run/qemu.pid" \
	"$WB_SCRIPTS/run/boot.sh" x86_64 "$mode" "$kernel" "$initrd" "$out.log" 600 \
	"nokaslr wb.job=trace wb.granules=${WB_INSNS_GRANULE:-1}" >"$run/boot" 2>&1 &
guest=$!

for _ in $(seq 300); do
	trace_started "$out.log" && break
	kill -0 "$guest" 2>/dev/null ||
		{ cat "$run/boot" >&2; die "the $mode guest ended before its runs (console: $out.log)"; }
	sleep 1
done
trace_started "$out.log" || die "the $mode guest did not start its runs in 300 s"

timeout 600 gdb -batch -nx -ex "set \$target = \"$run/gdb\"" \
	-ex "set \$output = \"$out.json\"" -ex "set \$calls = \"4\"" \
	-ex "set \$functions = \"dma_map_page_attrs,dma_unmap_page_attrs\"" \
	-x "$WB_SCRIPTS/run/insns-gdb.py" "$vmlinux" >"$out.gdb" 2>&1 ||
	{ show_tail "$out.gdb" 20; die "gdb could not step the $mode guest"; }
[ -s "$out.json" ] || die "gdb wrote no trace (see $out.gdb)"
