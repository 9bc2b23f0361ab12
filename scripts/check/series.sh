#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test that each patch of the series applies, in order, to the pristine tree.
# Works in a scratch index: neither the tree nor its work tree is touched.
# Usage: check/series.sh <tree> <patch dir> <results>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 dir=$(realpath "$2") results=$3
GIT_INDEX_FILE=$(mktemp)
export GIT_INDEX_FILE
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
git -C "$tree" read-tree pristine

broken=""
for p in $(series_patches "$dir/series"); do
	if [ -n "$broken" ]; then
		record "$results" FAIL "apply $p" "after $broken failed"
	elif git -C "$tree" apply --cached "$dir/$p" 2>"$GIT_INDEX_FILE.err"; then
		record "$results" PASS "apply $p"
	else
		sed 's/^/    /' "$GIT_INDEX_FILE.err"
		record "$results" FAIL "apply $p"
		broken=$p
	fi
done
rm -f "$GIT_INDEX_FILE.err"
