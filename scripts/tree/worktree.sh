#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put a detached worktree of <tree> at <dir> on <rev>, creating it when
# missing; a checkout touches only the files that differ.
# Usage: worktree.sh <tree> <rev> <dir>
set -eu

tree=$1 rev=$(git -C "$1" rev-parse "$2^{commit}") dir=$3
if [ ! -e "$dir/.git" ]; then
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$(realpath -m "$dir")" "$rev"
elif [ "$(git -C "$dir" rev-parse HEAD)" != "$rev" ]; then
	git -C "$dir" checkout -q --detach "$rev"
fi
