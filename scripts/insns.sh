#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Count the instructions of single dma_map_page_attrs() and
# dma_unmap_page_attrs() calls, function by function: boot <kernel> in
# <mode> on one vCPU under -icount with QEMU's gdbstub and the trace job,
# then have gdb single-step a few calls (scripts/insns-gdb.py) into
# <out>.json. The guest finishes its run once gdb detaches.
# Usage: insns.sh <mode> <kernel> <vmlinux> <initramfs> <out>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=$1 kernel=$2 vmlinux=$3 initrd=$4 out=$5
here=$(dirname "$0")
[ -f "$vmlinux" ] || die "no $vmlinux: build the kernel first"
mkdir -p "$(dirname "$out")"
socket=$(mktemp -u "${TMPDIR:-/tmp}/wb-gdb.XXXXXX")
rm -f "$out.json"

WB_SMP=1 WB_ICOUNT=1 WB_QEMU_ARGS="-gdb unix:$socket,server=on,wait=off" \
	"$here/boot.sh" x86_64 "$mode" "$kernel" "$initrd" "$out.log" 600 \
	"nokaslr wb.job=trace" &
guest=$!
trap 'kill "$guest" 2>/dev/null || true; rm -f "$socket"' EXIT

for _ in $(seq 300); do
	grep -q '^WB-TRACE-READY' "$out.log" 2>/dev/null && break
	kill -0 "$guest" 2>/dev/null || die "the $mode guest ended before its run (console: $out.log)"
	sleep 1
done
grep -q '^WB-TRACE-READY' "$out.log" || die "the $mode guest did not start its run in 300 s"

timeout 600 gdb -batch -nx -ex "set \$target = \"$socket\"" \
	-ex "set \$output = \"$out.json\"" -ex "set \$calls = \"4\"" \
	-ex "set \$functions = \"dma_map_page_attrs,dma_unmap_page_attrs\"" \
	-x "$here/insns-gdb.py" "$vmlinux" >"$out.gdb" 2>&1 ||
	{ show_tail "$out.gdb" 20; die "gdb could not step the $mode guest"; }
[ -s "$out.json" ] || die "gdb wrote no trace (see $out.gdb)"
wait "$guest"
