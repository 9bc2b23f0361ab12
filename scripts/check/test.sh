#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run one test of 'make check' and record PASS or FAIL in <results>.
# Usage: test.sh <results> <name> <command> [args...]
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

results=$1 name=$2
shift 2
start=$(date +%s)
rc=0
# The test's own output, indented, as it comes.
"$@" 2>&1 | sed -u 's/^/    /' || true
rc=${PIPESTATUS[0]}
took="$(($(date +%s) - start)) s"
if [ "$rc" = 0 ]; then
	record "$results" PASS "$name" "$took"
else
	record "$results" FAIL "$name" "$took, exit $rc"
fi
exit "$rc"
