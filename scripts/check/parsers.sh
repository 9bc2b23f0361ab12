#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test the console parsers on saved consoles, one result per case.
# guest-results.py: each tests/consoles/<name>.log, parsed with the
# arguments in <name>.args (its label, and --no-kunit for a console whose
# built-in suites are not read), must record exactly <name>.expected; its
# KTAP parser is the kunit.py of <kunit dir>, a directory holding
# tools/testing/kunit (make check-parsers: Linux 7.3's, extracted from the
# source tarball, so no patched tree is needed; a kernel tree works too).
# report.py: each tests/bench/<case>/ holds the baseline/ and patched/
# consoles of a benchmark, and may hold workloads/baseline/ and
# workloads/patched/, those of the workloads; the report must write
# expected.csv (and expected-workloads.csv) and exit with expected-status
# (failed, lost, cut-off or missing runs and workloads make it fail).
# per_patch.py: the same consoles as two kernels of a series must give
# expected-per-patch.txt, its table and exit status (and, with --workloads,
# the workload consoles expected-per-patch-workloads.txt).
# summary.sh: the KTAP it writes for a CI must read in kunit.py as the
# results it was given (a pass, a failure and a skip, with their details).
# Usage: check/parsers.sh <kunit dir> <results>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# = 2 ] || die "usage: check/parsers.sh <kunit dir> <results>"
kunit_dir=$1 results=$2
[ -f "$kunit_dir/tools/testing/kunit/kunit.py" ] ||
	die "$kunit_dir holds no tools/testing/kunit/kunit.py"
got=$(mktemp)
fixtures=$(mktemp -d)
trap 'rm -rf "$got" "$got.diff" "$got.err" "$fixtures"' EXIT
# The saved consoles and benchmark fixtures, in today's protocol (rewritten
# when guest/protocol.sh renamed what they were recorded with).
if ! dirs=$(python3 "$WB_SCRIPTS/../tests/results/fixtures.py" "$fixtures"); then
	record "$results" FAIL "the saved fixtures in today's protocol" "tests/results/fixtures.py failed"
	exit 1
fi
{ read -r consoles && read -r bench; } <<<"$dirs"

rc=0
for log in "$consoles"/*.log; do
	name=$(basename "$log" .log)
	: >"$got"
	# shellcheck disable=SC2046 # the .args file holds words
	"$WB_SCRIPTS/results/guest-results.py" "$kunit_dir" "$log" $(cat "$consoles/$name.args") "$got" \
		>/dev/null 2>"$got.err" || true
	if diff -u "$consoles/$name.expected" "$got" >"$got.diff"; then
		record "$results" PASS "guest-results.py on tests/consoles/$name.log"
	else
		cat "$got.diff" "$got.err"
		record "$results" FAIL "guest-results.py on tests/consoles/$name.log" "results differ"
		rc=1
	fi
	rm -f "$got.diff" "$got.err"
done

out=$(mktemp -d)
trap 'rm -rf "$got" "$got.diff" "$got.err" "$fixtures" "$out" "$out.log"' EXIT
for case in "$bench"/*/; do
	name=$(basename "$case")
	status=0
	workloads=()
	[ ! -d "$case/workloads" ] || workloads=("$case/workloads/baseline" "$case/workloads/patched")
	"$WB_SCRIPTS/results/report.py" "$out" "$case/baseline" "$case/patched" tcg "${workloads[@]}" \
		>"$out.log" 2>&1 || status=$?
	if [ "$status" = "$(cat "$case/expected-status")" ] &&
		diff -u "$case/expected.csv" "$out/bench.csv" &&
		{ [ ! -d "$case/workloads" ] ||
			diff -u "$case/expected-workloads.csv" "$out/workloads.csv"; }; then
		record "$results" PASS "report.py on tests/bench/$name"
	else
		tail -n 20 "$out.log"
		record "$results" FAIL "report.py on tests/bench/$name" "exit $status or its table differs"
		rc=1
	fi
	rm -f "$out"/*
done

# per_patch.py on the same consoles, as two kernels of a series: its table
# and exit status must be expected-per-patch.txt; with --workloads, on the
# workload consoles, expected-per-patch-workloads.txt.
per_patch_case() { # <name> <expected> <per_patch.py argument>...
	local name=$1 expected=$2
	shift 2
	{ "$WB_SCRIPTS/results/per_patch.py" "$@" && echo "exit: 0" || echo "exit: $?"; } >"$out.log" 2>&1
	if diff -u "$expected" "$out.log"; then
		record "$results" PASS "per_patch.py $name"
	else
		record "$results" FAIL "per_patch.py $name" "its table or exit status differs"
		rc=1
	fi
}
for case in "$bench"/*/; do
	name=$(basename "$case")
	per_patch_case "on tests/bench/$name" "$case/expected-per-patch.txt" "$case" baseline patched
	[ ! -d "$case/workloads" ] || per_patch_case "--workloads on tests/bench/$name" \
		"$case/expected-per-patch-workloads.txt" --workloads "$case/workloads" baseline patched
done

# summary.sh's KTAP, read back by kunit.py: the counts and the skip's reason.
printf '%s\n' "PASS one # 3 s" "FAIL two # it broke" "SKIP three # no device" >"$out/results"
"$WB_SCRIPTS/check/summary.sh" "$out/results" >/dev/null || true
python3 "$kunit_dir/tools/testing/kunit/kunit.py" parse "$out/results.ktap" >"$out.log" 2>&1 || true
if grep -q "Ran 3 tests: passed: 1, failed: 1, skipped: 1" "$out.log" &&
	grep -q "three (no device)" "$out.log"; then
	record "$results" PASS "summary.sh's KTAP read by kunit.py"
else
	cat "$out.log"
	record "$results" FAIL "summary.sh's KTAP read by kunit.py" "not the results it was given"
	rc=1
fi
exit $rc
