#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every patch of the series: a patch passes with
# no errors, no warnings and no checks.
# Usage: checkpatch.sh <tree> <patch dir> <results>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 dir=$(realpath "$2") results=$3
for p in $(series_patches "$dir/series"); do
	report=$("$tree/scripts/checkpatch.pl" --root="$tree" --strict --color=never "$dir/$p" 2>&1) || true
	if echo "$report" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		record "$results" PASS "checkpatch $p"
	else
		echo "$report" | grep -v '^$' | sed 's/^/    /' | tail -n 40
		record "$results" FAIL "checkpatch $p"
	fi
done
