#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report.py fed the live consoles of make check's debug boots (the rows of
# configs/boots whose kernel is "debug"): their job runs a small benchmark
# matrix whose run objects nothing else reads, so a guest and a report that
# stopped agreeing would only show at the next 'make'. Each console,
# <label>.log in one of <logs dir>, is laid out as bench.sh lays out a
# kernel's: <mode>.log, its mode the row's. report.py then reads that one
# directory as both baseline and patched.
# PASS only if report.py exits 0, its bench.csv has one row per run object
# the consoles carry (counted here, apart from report.py) and no row lacks
# its key or latencies; when the consoles carry workload objects, they are
# fed too and workloads.csv must have a row per workload object.
# Usage: check/report.sh <results> <logs dir>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -ge 2 ] || die "usage: check/report.sh <results> <logs dir>..."
results=$1
shift
boots=$WB_SCRIPTS/../configs/boots
name="report.py on the debug boots' consoles"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The labels of configs/boots' debug boots.
debug_labels() {
	awk '$1 !~ /^#/ && $3 == "debug" { print $1 }' "$boots"
}

# The name of the IOMMU mode configs/boots gives boot <label> (by role).
boot_mode() { # <label>
	mode_name "$(awk -v label="$1" '$1 == label { print $4 }' "$boots")" ||
		fail "$boots: boot $1 has no known mode role"
}

# The console <label>.log of the logs directories; nothing if none has it,
# every one if several do (the caller refuses both).
consoles_of() { # <label> <logs dir>...
	for dir in "${@:2}"; do
		[ ! -f "$dir/$1.log" ] || echo "$dir/$1.log"
	done
}

# How many JSON objects of <kind> the consoles carry: "# {" lines whose
# first member is <kind>, as the guest's steps print them (guest/steps/
# bench.sh, workload.sh). The quote and colon after the kind keep the
# workload plan ("workloads") apart from a workload ("workload").
count_objects() { # <kind> <console>...
	cat "${@:2}" | tr -d '\r' | grep -c "^[[:space:]]*# {\"$1\":" || true
}

# "<distinct keys> <rows lacking a value> <rows counting>" of a CSV file
# report.py wrote: a row lacks a value when one of <keys> or <values>
# (comma-separated column names) is empty, unless its goal says "skipped"
# (a workload the guest was not asked to run, which holds no number by
# design); a row counts when its [counter] column holds a number.
csv_counts() { # <csv> <keys> <values> [counter]
	python3 - "$@" <<'EOF'
import csv
import sys

path, keys, values = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
counter = sys.argv[4] if len(sys.argv) > 4 else None
with open(path, newline="") as f:
    rows = list(csv.DictReader(f))
distinct = {tuple(row.get(k) for k in keys) for row in rows}
lacking = [row for row in rows if row.get("goal") != "skipped"
           and any(not row.get(column) for column in keys + values)]
counting = [row for row in rows if counter and row.get(counter)]
print(len(distinct), len(lacking), len(counting))
EOF
}

fail() { # <reason>
	record "$results" FAIL "$name" "$1"
	exit 1
}

# Each debug boot's console as <dir>/<mode>.log; the consoles with
# workload objects also as <dir>/workloads/<mode>.log.
lay_out() { # <dir> <logs dir>...
	mkdir -p "$1/bench" "$1/workloads"
	for label in $(debug_labels); do
		mapfile -t found < <(consoles_of "$label" "${@:2}")
		[ "${#found[@]}" != 0 ] || fail "no console of boot $label in ${*:2}"
		[ "${#found[@]}" = 1 ] || fail "boot $label has ${#found[@]} consoles: ${found[*]}"
		mode=$(boot_mode "$label")
		# report.py keys runs by mode: two consoles of one mode would merge.
		[ ! -e "$1/bench/$mode.log" ] || fail "two debug boots in mode $mode"
		ln -s "$(realpath "${found[0]}")" "$1/bench/$mode.log"
		# A console that planned workloads is fed as one: report.py fails
		# a planned workload the console does not show.
		[ "$(count_objects "$WB_KIND_PLAN" "${found[0]}")" = 0 ] ||
			ln -s "$(realpath "${found[0]}")" "$1/workloads/$mode.log"
	done
}

lay_out "$work" "$@"
runs=$(count_objects "$WB_KIND_RUN" "$work"/bench/*.log)
# Run objects with a counted run, and those whose IOTLB waits are above 0:
# on VT-d every counted run waits (in caching mode too, for its maps), so
# a wait count of 0 means the probes read nothing (a kprobe_profile the
# guest no longer parses). Each counted run's row must hold its count.
counted=$(cat "$work"/bench/*.log | grep -c "# {\"$WB_KIND_RUN\":.*\"counted\":{" || true)
waited=$(cat "$work"/bench/*.log |
	grep -c "# {\"$WB_KIND_RUN\":.*\"counted\":{[^{}]*\"$WB_COUNT_WAIT\":[1-9]" || true)
workloads=0
report_args=("$work/bench" "$work/bench" "debug kernel, make check")
if compgen -G "$work/workloads/*.log" >/dev/null; then
	workloads=$(count_objects "$WB_KIND_WORKLOAD" "$work"/workloads/*.log)
	report_args+=("$work/workloads" "$work/workloads")
fi
[ "$runs" != 0 ] || fail "the consoles carry no run object"

status=0
"$WB_SCRIPTS/results/report.py" "$work/out" "${report_args[@]}" >"$work/report.log" 2>&1 || status=$?
if [ "$status" != 0 ]; then
	tail -n 20 "$work/report.log"
	fail "report.py exited $status"
fi

csv_counts "$work/out/bench.csv" mode,map,granule,threads,depth \
	baseline_map_mean,patched_map_mean,baseline_unmap_mean,patched_unmap_mean \
	patched_qi_per_1k_unmaps >"$work/counts" || fail "bench.csv does not read as CSV"
read -r rows lacking counting <"$work/counts"
[ "$rows" = "$runs" ] || fail "bench.csv has $rows rows for $runs run objects"
[ "$lacking" = 0 ] || fail "$lacking rows of bench.csv lack a key or a latency"
[ "$waited" = "$counted" ] ||
	fail "$waited of $counted counted runs count $WB_COUNT_WAIT calls"
[ "$counting" = "$counted" ] ||
	fail "$counting rows of bench.csv hold counters for $counted counted runs"
detail="$runs runs, $counted counted"
if [ "$workloads" != 0 ]; then
	[ -f "$work/out/workloads.csv" ] || fail "no workloads.csv for $workloads workload objects"
	csv_counts "$work/out/workloads.csv" workload,mode baseline,patched >"$work/counts" ||
		fail "workloads.csv does not read as CSV"
	read -r rows lacking _ <"$work/counts"
	[ "$rows" = "$workloads" ] ||
		fail "workloads.csv has $rows workloads for $workloads workload objects"
	[ "$lacking" = 0 ] || fail "$lacking rows of workloads.csv lack a value"
	detail="$detail, $workloads workloads"
fi
record "$results" PASS "$name" "$detail"
