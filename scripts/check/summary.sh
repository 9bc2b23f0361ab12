#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Close 'make check' with one line "N passed, N failed[, N skipped]"; exit
# non-zero when a test failed or none ran. A non-zero <status> of the steps
# that recorded nothing to show for it counts as one failure. The results
# are also written as KTAP to <results>.ktap, for a CI that collects test
# reports: one test each, its detail as a diagnostic line before it.
# Usage: summary.sh <results> [status of the test steps]
set -eu

results=$1 status=${2:-0}
[ -f "$results" ] || touch "$results"
if [ "$status" != 0 ] && ! grep -q '^FAIL ' "$results"; then
	echo "FAIL a check step stopped before recording a result # exit $status" >>"$results"
fi
# <results>: lines "PASS|FAIL|SKIP <name>[ # <detail>]"
awk -v total="$(wc -l <"$results")" '
BEGIN { print "KTAP version 1"; print "1.." total }
{
	status = $1
	name = substr($0, length(status) + 2)
	detail = ""
	cut = index(name, " # ")
	if (cut) { detail = substr(name, cut + 3); name = substr(name, 1, cut - 1) }
	if (status == "SKIP") { print "ok " NR " " name " # SKIP " detail; next }
	if (detail != "") print "# " name ": " detail
	print (status == "PASS" ? "ok " : "not ok ") NR " " name
}' "$results" >"$results.ktap"

passed=$(grep -c '^PASS ' "$results" || true)
failed=$(grep -c '^FAIL ' "$results" || true)
skipped=$(grep -c '^SKIP ' "$results" || true)
if [ "$failed" != 0 ]; then
	echo "failed:"
	sed -n 's/^FAIL /  /p' "$results"
fi
if [ "$skipped" = 0 ]; then
	echo "$passed passed, $failed failed"
else
	echo "$passed passed, $failed failed, $skipped skipped"
fi
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
