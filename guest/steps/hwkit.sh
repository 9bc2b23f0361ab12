#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hwkit step: the hardware kit's runner (/wb/hw-run.sh, hw/) run in the
# guest as on a machine, against edu, one test each (wb.hwkit= names them,
# comma-separated; default all but noiommu):
#   rows     the bench step, then the kit with the same matrix (wb.maps=,
#            ...) in the boot's mode: the same runs, each p50 within
#            wb.hwkit_tolerance= percent (default 10: one vCPU on -icount,
#            configs/boots' "icount", where the workbench calls one-thread
#            numbers exact; the runs differ only in what ran before)
#   busy     edu bound to dma_map_benchmark: the kit without --take refuses
#            it and leaves it bound
#   restore  with --take, a normal end gives driver, driver_override and
#            group type back; the modes of wb.hwkit_unset= (which the
#            kernel will not set here, e.g. identity on a VT-d without
#            pass-through; named by role, as configs/boots and tests/breaks/
#            name modes: direct, lazy, strict, cm) are said and get no
#            console
#   kill     kill -TERM mid-run gives the same back and leaves no tool
#   noiommu  a boot without an IOMMU (x86_64's direct mode): refused, edu untouched
set -eu
# shellcheck source=guest/lib.sh
. "${WB_DIR:-/wb}/lib.sh"

KIT=$WB_DIR/hw-run.sh
WORK=/tmp/hwkit
cases=$(wb_arg hwkit rows,busy,restore,kill | tr , ' ')
unset_modes=
for role in $(wb_arg hwkit_unset | tr , ' '); do
	name=$(mode_name "$role") || { echo "# wb.hwkit_unset=: unknown mode role $role"; exit 1; }
	unset_modes=${unset_modes:+$unset_modes,}$name
done
tolerance=$(wb_arg hwkit_tolerance 10)
# The boot's matrix, as make's variables the kit reads.
MAPS=$(wb_arg maps single) GRANULES=$(wb_arg granules 1) THREADS=$(wb_arg threads 1)
DEPTHS=$(wb_arg depths 1) RUN_SECONDS=$(wb_arg seconds 1)
export MAPS GRANULES THREADS DEPTHS RUN_SECONDS
# Reading the JSON lines is slow under TCG: the bench step's own limits.
RUN_LIMIT=600

dev=$(pci_find 0x1234 0x11e8) || { echo "# no edu device (1234:11e8)"; exit 1; }
addr=${dev##*/}
mkdir -p "$WORK"

# The IOMMU mode of a group type, as the kit names it.
type_mode() { # <type>
	case $1 in
	identity) echo "$WB_MODE_DIRECT" ;;
	DMA-FQ) echo "$WB_MODE_LAZY" ;;
	*) echo "$WB_MODE_STRICT" ;;
	esac
}
start_type=$(domain_type "$dev")
mode=$(type_mode "$start_type")

# edu as the boot left it: no driver, no driver_override.
release() {
	[ ! -e "$dev/driver" ] || sysfs_write "$dev/driver/unbind" "$addr"
	sysfs_write "$dev/driver_override" ""
}

# "<driver> <driver_override> <type>" of edu now.
state() {
	echo "$(basename "$(readlink "$dev/driver" || echo none)") $(cat "$dev/driver_override") $(domain_type "$dev")"
}

# Run the kit into <dir>; its output as diagnostic lines, its exit status
# returned (0 passed, 2 refused, 3 a mode not set or a run failed).
kit() { # <dir> [options...]
	local out=$1 rc=0
	shift
	rm -rf "$out"
	timeout -k 10 "$RUN_LIMIT" sh "$KIT" "$@" "$addr" "$out" >"$out.txt" 2>&1 || rc=$?
	sed 's/^/# /' "$out.txt"
	return "$rc"
}

# "<map> <granule> <threads> <depth> <domain> <rc> <map p50> <unmap p50>"
# of each run object of a console, sorted.
rows() { # <console>
	run_objects "$1" | awk '
		function member(pattern, skip) {
			if (!match($0, pattern)) return "-"
			return substr($0, RSTART + skip, RLENGTH - skip)
		}
		function p50(op) {
			if (!match($0, "\"" op "\":[{][^}]*[}]")) return "-"
			part = substr($0, RSTART, RLENGTH)
			if (!match(part, /"p50_ns":[0-9]+/)) return "-"
			return substr(part, RSTART + 9, RLENGTH - 9)
		}
		{
			print member("\"map\":\"[^\"]*", 7), member("\"granule\":[0-9]+", 10),
				member("\"threads\":[0-9]+", 10), member("\"depth\":[0-9]+", 8),
				member("\"domain\":\"[^\"]*", 10), member("\"rc\":[0-9]+", 5),
				p50("map"), p50("unmap")
		}' | sort
}

test_rows() {
	local rc=0 bad
	ktap_print_msg "the bench step, then the kit, in mode $mode ($start_type)"
	sh "$WB_DIR/steps/bench.sh" >"$WORK/bench.ktap" 2>&1 || rc=$?
	release
	sed 's/^/# bench: /' "$WORK/bench.ktap"
	MODES=$mode kit "$WORK/rows" --tool series || rc=$?
	if [ "$rc" != 0 ] || [ ! -f "$WORK/rows/$mode.log" ]; then
		ktap_test_fail "the kit's rows equal the bench step's # exit=$rc"
		return
	fi
	rows "$WORK/bench.ktap" >"$WORK/bench.rows"
	rows "$WORK/rows/$mode.log" >"$WORK/kit.rows"
	# Same runs (keys, domain, status), each p50 within the tolerance.
	bad=$(awk -v tol="$tolerance" '
		function far(a, b) { return a == "-" || b == "-" || (a - b) * 100 > tol * b || (b - a) * 100 > tol * b }
		NR == FNR { bench[$1 " " $2 " " $3 " " $4 " " $5 " " $6] = $7 " " $8; n++; next }
		{
			key = $1 " " $2 " " $3 " " $4 " " $5 " " $6; m++
			if (!(key in bench)) { print "the kit ran " key ", the bench step did not"; next }
			split(bench[key], b, " ")
			if ($6 != 0 || far($7, b[1]) || far($8, b[2]))
				print key ": map p50 " $7 " against " b[1] ", unmap p50 " $8 " against " b[2]
		}
		END { if (n != m || n == 0) print n " bench runs, " m " kit runs" }' \
		"$WORK/bench.rows" "$WORK/kit.rows")
	paste "$WORK/bench.rows" "$WORK/kit.rows" | sed 's/^/# bench | kit: /'
	if [ -z "$bad" ]; then
		ktap_test_pass "the kit's rows equal the bench step's"
	else
		echo "$bad" | sed 's/^/# /'
		ktap_test_fail "the kit's rows equal the bench step's"
	fi
}

test_busy() {
	local rc=0 before
	bind_benchmark_device >/dev/null
	before=$(state)
	kit "$WORK/busy" || rc=$?
	if [ "$rc" = 2 ] && grep -q "in use by driver dma_map_benchmark" "$WORK/busy.txt" &&
		[ "$(state)" = "$before" ] && [ ! -e "$WORK/busy/$mode.log" ]; then
		ktap_test_pass "a device in use is refused"
	else
		ktap_test_fail "a device in use is refused # exit=$rc, edu: $(state), was $before"
	fi
}

# edu bound to dma_map_benchmark (its override set) before each: the kit
# must give that back, not merely leave edu unbound.
test_restore() {
	local rc=0 before expect=0 modes=$mode said=1
	bind_benchmark_device >/dev/null
	before=$(state)
	[ -z "$unset_modes" ] || { expect=3 modes="$mode,$unset_modes"; }
	MODES=$modes GRANULES=1 THREADS=1 DEPTHS=1 kit "$WORK/restore" --take || rc=$?
	if [ "$rc" = "$expect" ] && [ "$(state)" = "$before" ] && [ -f "$WORK/restore/$mode.log" ]; then
		ktap_test_pass "the driver is back after a normal end"
	else
		ktap_test_fail "the driver is back after a normal end # exit=$rc, edu: $(state), was $before"
	fi
	[ -n "$unset_modes" ] || return 0
	for m in $(echo "$unset_modes" | tr , ' '); do
		grep -q "mode $m (.*) not set: the kernel will not set" "$WORK/restore.txt" &&
			[ ! -e "$WORK/restore/$m.log" ] || said=""
	done
	if [ -n "$said" ]; then
		ktap_test_pass "a mode the kernel will not set is said and skipped"
	else
		ktap_test_fail "a mode the kernel will not set is said and skipped"
	fi
}

test_kill() {
	local rc=0 before pid started="" left
	bind_benchmark_device >/dev/null
	before=$(state)
	rm -rf "$WORK/kill"
	MODES=$mode GRANULES=1 THREADS=1 DEPTHS=1 RUN_SECONDS=30 \
		sh "$KIT" --take --tool series "$addr" "$WORK/kill" >"$WORK/kill.txt" 2>&1 &
	pid=$!
	# Killed during its first run, a second after the tool started (the
	# console is written through sed, which holds it back until the end).
	for _ in $(seq 300); do
		if cat /proc/[0-9]*/comm 2>/dev/null | grep -q '^dma_map_benchm'; then started=1; break; fi
		sleep 0.2
	done
	sleep 1
	kill -TERM "$pid" || true
	wait "$pid" || rc=$?
	sed 's/^/# /' "$WORK/kill.txt"
	left=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^dma_map_benchm' || true)
	if [ -n "$started" ] && [ "$rc" = 143 ] && [ "$(state)" = "$before" ] && [ "$left" = 0 ]; then
		ktap_test_pass "the driver is back after a kill"
	else
		ktap_test_fail "the driver is back after a kill # exit=$rc, started=$started, edu: $(state), was $before, tools left $left"
	fi
}

test_noiommu() {
	local rc=0 before
	before=$(state)
	kit "$WORK/noiommu" --take || rc=$?
	if [ "$rc" = 2 ] && grep -q "no IOMMU" "$WORK/noiommu.txt" && [ "$(state)" = "$before" ] &&
		grep -q '"iommus":\[\]' "$WORK/noiommu/machine.json"; then
		ktap_test_pass "a machine without an IOMMU is refused"
	else
		ktap_test_fail "a machine without an IOMMU is refused # exit=$rc, edu: $(state), was $before"
	fi
}

# shellcheck disable=SC2086 # a list
set -- $cases
plan=$#
case " $* " in *" restore "*) [ -z "$unset_modes" ] || plan=$((plan + 1)) ;; esac
ktap_set_plan "$plan"
for case; do
	case $case in
	rows | busy | restore | kill | noiommu) "test_$case" ;;
	*) ktap_test_fail "unknown case $case (wb.hwkit=)" ;;
	esac
	release
done
ktap_finished
