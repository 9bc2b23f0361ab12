#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test guest-results.py on the saved consoles of tests/consoles/: each
# <name>.log is parsed with the arguments in <name>.args (its label, and
# --no-kunit for a console whose built-in suites are not read) and must
# record exactly the results in <name>.expected. One result per console.
# Usage: test-parsers.sh <tree> <results>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 results=$2
here=$(dirname "$0")
consoles=$here/../tests/consoles
got=$(mktemp)
trap 'rm -f "$got"' EXIT

rc=0
for log in "$consoles"/*.log; do
	name=$(basename "$log" .log)
	: >"$got"
	# shellcheck disable=SC2046 # the .args file holds words
	"$here/guest-results.py" "$tree" "$log" $(cat "$consoles/$name.args") "$got" \
		>/dev/null || true
	if diff -u "$consoles/$name.expected" "$got" >"$got.diff"; then
		record "$results" PASS "guest-results.py on tests/consoles/$name.log"
	else
		cat "$got.diff"
		record "$results" FAIL "guest-results.py on tests/consoles/$name.log" "results differ"
		rc=1
	fi
	rm -f "$got.diff"
done
exit $rc
