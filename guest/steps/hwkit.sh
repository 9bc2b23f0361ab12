#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hwkit step: the hardware kit's runner (/wb/hw-run.sh, hw/) run in the
# guest as on a machine, against edu, one test each (wb.hwkit= names them,
# comma-separated; default all but noiommu):
#   rows     the bench step, the kit with the same matrix (wb.maps=, ...)
#            in the boot's mode, the bench step again: the same runs, each
#            of the kit's means, p50s, p99s (map and unmap) and counters
#            (per 1000 operations) within the spread of the bench step's
#            two runs widened by wb.hwkit_tolerance= percent (default 4:
#            the 2% two runs of one kernel differ by in
#            docs/measurements.md, and the histogram's 1/32 step; one
#            count more or less)
#   busy     edu bound to dma_map_benchmark: the kit without --take refuses
#            it and leaves it bound
#   restore  with --take, the kit runs the boot's mode, then the other of
#            lazy and strict (the group's type switched), and a normal end
#            gives driver, driver_override and group type back; the modes
#            of wb.hwkit_unset= (which the kernel will not set here, e.g.
#            identity on a VT-d without pass-through; named by role, as
#            configs/boots and tests/breaks/ name modes: direct, lazy,
#            strict, cm) are said and get no console
#   kill     kill -TERM mid-run in the other mode gives the same back and
#            leaves no tool
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
tolerance=$(wb_arg hwkit_tolerance 4)
# The boot's matrix, as make's variables the kit reads.
MAPS=$(wb_arg maps single) GRANULES=$(wb_arg granules 1) THREADS=$(wb_arg threads 1)
DEPTHS=$(wb_arg depths 1) RUN_SECONDS=$(wb_arg seconds 1)
# The bench step's mask: wb.dma_bits=, else the tool's default.
DMA_BITS=$(wb_arg dma_bits 32)
export MAPS GRANULES THREADS DEPTHS RUN_SECONDS DMA_BITS
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
echo "# edu $addr: group type $start_type (mode $mode)"
# The mode restore and kill switch the group to, and its type.
case $start_type in
DMA-FQ) other=$WB_MODE_STRICT other_type=DMA ;;
*) other=$WB_MODE_LAZY other_type=DMA-FQ ;;
esac

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

# "<map> <granule> <threads> <depth> <domain> <rc> <value>..." of each run
# object of a console, sorted: the values are the timed run's map and unmap
# mean, p50 and p99 (ns), then each counter of WB_COUNTED of its counted run
# per 1000 of that run's operations ("-" for one the run lacks).
rows() { # <console>
	run_objects "$1" | awk -v counters="$WB_COUNTED" '
		function member(text, name, quoted,   pattern) {
			pattern = "\"" name "\":" (quoted ? "\"[^\"]*" : "[0-9]+")
			if (!match(text, pattern)) return "-"
			return substr(text, RSTART + length(name) + 3 + quoted, RLENGTH - length(name) - 3 - quoted)
		}
		function part(text, name) {
			if (!match(text, "\"" name "\":[{][^}]*[}]")) return ""
			return substr(text, RSTART, RLENGTH)
		}
		# Calls per 1000 operations: a counted run lasts a second, whatever
		# number of operations fit in it.
		function per_1000(calls, ops) {
			if (calls == "-" || ops == "-" || ops == 0) return "-"
			return int(calls * 1000 / ops + 0.5)
		}
		function stats(text, op,   p) {
			p = part(text, op)
			return member(p, "mean_ns") " " member(p, "p50_ns") " " member(p, "p99_ns")
		}
		{
			timed = substr($0, index($0, "\"timed\":"))
			counted = substr($0, index($0, "\"counted\":"))
			line = member($0, "map", 1) " " member($0, "granule") " " member($0, "threads") " " \
				member($0, "depth") " " member($0, "domain", 1) " " member($0, "rc") " " \
				stats(timed, "map") " " stats(timed, "unmap")
			ops = member(counted, "ops")
			n = split(counters, c, " ")
			for (i = 1; i <= n; i++)
				line = line " " (index($0, "\"counted\":") ? per_1000(member(counted, c[i]), ops) : "-")
			print line
		}' | sort
}

# The names of rows()'s values, for what a comparison reports.
VALUES="map_mean map_p50 map_p99 unmap_mean unmap_p50 unmap_p99 $WB_COUNTED"

# What in <kit rows> lies outside the spread of the bench step's two runs
# (<bench rows> and <again rows>) widened by the tolerance: per run key,
# each value at least the smaller of the two less tolerance percent of it
# and at most the larger plus as much (and one, for a count); the same
# keys in all three, every run's status 0.
outside_spread() { # <bench rows> <again rows> <kit rows>
	{ sed 's/^/1 /' "$1"; sed 's/^/2 /' "$2"; sed 's/^/3 /' "$3"; } |
		awk -v tol="$tolerance" -v names="$VALUES" '
		function key() { return $1 " " $2 " " $3 " " $4 " " $5 " " $6 }
		function vals(   v, i) { v = $7; for (i = 8; i <= NF; i++) v = v " " $i; return v }
		{ file = $1; $1 = ""; $0 = $0 }
		file == 1 { first[key()] = vals(); n1++; next }
		file == 2 { second[key()] = vals(); n2++; next }
		{
			k = key(); n3++
			if (!(k in first) || !(k in second)) { print "the kit ran " k ", a bench run did not"; next }
			if ($6 != 0) { print k ": the kit run failed"; next }
			split(names, name, " "); split(first[k], a, " "); split(second[k], b, " ")
			for (i = 7; i <= NF; i++) {
				j = i - 6
				if ($i == "-" && a[j] == "-" && b[j] == "-") continue
				if ($i == "-" || a[j] == "-" || b[j] == "-") { print k ": " name[j] " missing"; continue }
				lo = a[j] < b[j] ? a[j] : b[j]; hi = a[j] < b[j] ? b[j] : a[j]
				slack = hi * tol / 100; if (j > 6 && slack < 1) slack = 1
				if ($i < lo - slack || $i > hi + slack)
					print k ": " name[j] " " $i " outside " lo " to " hi " (" tol "% more)"
			}
		}
		END { if (n1 != n3 || n2 != n3 || n3 == 0) print n1 + 0 " and " n2 + 0 " bench runs, " n3 + 0 " kit runs" }'
}

test_rows() {
	local rc=0 bad
	ktap_print_msg "the bench step, the kit, the bench step again, in mode $mode ($start_type)"
	sh "$WB_DIR/steps/bench.sh" >"$WORK/bench.ktap" 2>&1 || rc=$?
	release
	sed 's/^/# bench: /' "$WORK/bench.ktap"
	MODES=$mode kit "$WORK/rows" --tool series || rc=$?
	release
	sh "$WB_DIR/steps/bench.sh" >"$WORK/again.ktap" 2>&1 || rc=$?
	release
	if [ "$rc" != 0 ] || [ ! -f "$WORK/rows/$mode.log" ]; then
		ktap_test_fail "the kit's rows lie within the bench step's spread # exit=$rc"
		return
	fi
	rows "$WORK/bench.ktap" >"$WORK/bench.rows"
	rows "$WORK/again.ktap" >"$WORK/again.rows"
	rows "$WORK/rows/$mode.log" >"$WORK/kit.rows"
	echo "# rows: <map> <granule> <threads> <depth> <domain> <rc> $VALUES"
	for f in bench again kit; do sed "s/^/# $f: /" "$WORK/$f.rows"; done
	bad=$(outside_spread "$WORK/bench.rows" "$WORK/again.rows" "$WORK/kit.rows")
	if [ -z "$bad" ]; then
		ktap_test_pass "the kit's rows lie within the bench step's spread"
	else
		echo "$bad" | sed 's/^/# /'
		ktap_test_fail "the kit's rows lie within the bench step's spread"
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
# The group types of the runs of a kit's console, one line each.
run_types() { # <console>
	rows "$1" | awk '{ print $5 }' | sort -u
}

test_restore() {
	local rc=0 before expect=0 modes="$mode,$other" said=1 switched
	bind_benchmark_device >/dev/null
	before=$(state)
	[ -z "$unset_modes" ] || { expect=3 modes="$modes,$unset_modes"; }
	MODES=$modes GRANULES=1 THREADS=1 DEPTHS=1 kit "$WORK/restore" --take || rc=$?
	switched=$(run_types "$WORK/restore/$other.log" 2>/dev/null || true)
	if [ "$rc" = "$expect" ] && [ "$(state)" = "$before" ] && [ -f "$WORK/restore/$mode.log" ] &&
		[ "$switched" = "$other_type" ]; then
		ktap_test_pass "the driver and the group type are back after a normal end"
	else
		ktap_test_fail "the driver and the group type are back after a normal end # exit=$rc, edu: $(state), was $before, $other ran in: $switched"
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

# Killed during its run in the other mode, a second after the tool started
# (the console is written through sed, which holds it back until the end).
test_kill() {
	local rc=0 before pid started="" during="" left sent took
	bind_benchmark_device >/dev/null
	before=$(state)
	rm -rf "$WORK/kill"
	MODES=$other GRANULES=1 THREADS=1 DEPTHS=1 RUN_SECONDS=30 \
		sh "$KIT" --take --tool series "$addr" "$WORK/kill" >"$WORK/kill.txt" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		if cat /proc/[0-9]*/comm 2>/dev/null | grep -q '^dma_map_benchm'; then started=1; break; fi
		sleep 0.2
	done
	sleep 1
	during=$(domain_type "$dev")
	sent=$(date +%s)
	kill -TERM "$pid" || true
	wait "$pid" || rc=$?
	# Ended, not run on to the end of its 30 s.
	took=$(($(date +%s) - sent))
	sed 's/^/# /' "$WORK/kill.txt"
	left=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^dma_map_benchm' || true)
	if [ -n "$started" ] && [ "$during" = "$other_type" ] && [ "$rc" = 143 ] &&
		[ "$took" -lt 10 ] && [ "$(state)" = "$before" ] && [ "$left" = 0 ]; then
		ktap_test_pass "the driver and the group type are back after a kill"
	else
		ktap_test_fail "the driver and the group type are back after a kill # exit=$rc, started=$started, type during the run $during, ended in $took s, edu: $(state), was $before, tools left $left"
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
