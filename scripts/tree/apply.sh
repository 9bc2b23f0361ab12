#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply the patches of a series with git am onto the current HEAD of <tree>.
# On failure, name the patch, restore HEAD and exit non-zero.
# Usage: apply.sh <tree> <patch dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 dir=$(realpath "$2")
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for p in $(series_patches "$dir/series"); do
	[ -f "$dir/$p" ] || die "series names $p, which is not in $dir"
	if ! git -C "$tree" am -q --keep-cr "$dir/$p" >"$log" 2>&1; then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		grep -E '^(error|Patch failed)' "$log" | sed 's/^/  /' >&2 || true
		die "patch $p does not apply to $tree"
	fi
done
