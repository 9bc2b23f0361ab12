#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Close 'make check' with one line "N passed, N failed[, N skipped]"; exit
# non-zero when a test failed or none ran. A non-zero <status> of the steps
# that recorded nothing to show for it counts as one failure.
# Usage: summary.sh <results> [status of the test steps]
set -eu

results=$1 status=${2:-0}
[ -f "$results" ] || touch "$results"
if [ "$status" != 0 ] && ! grep -q '^FAIL ' "$results"; then
	echo "FAIL a check step stopped (exit $status) before recording a result" >>"$results"
fi
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
