#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run one stage of the workbench, saying what it does and how long it took.
# Usage: stage.sh <description> <command> [args...]
set -eu

what=$1
shift
printf '==> %s\n' "$what"
start=$(date +%s)
rc=0
"$@" || rc=$?
if [ "$rc" = 0 ]; then
	printf '<== %s: %s s\n' "$what" "$(($(date +%s) - start))"
else
	printf 'error: stage failed: %s (exit %s)\n' "$what" "$rc" >&2
fi
exit "$rc"
