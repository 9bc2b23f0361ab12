#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply the series to a user's own Linux 7.3 git tree, on a new branch
# "iommu-fastpath" from its HEAD. Refuses a dirty tree; on failure the tree
# is left as it was.
# Usage: ksrc.sh <tree> <patch dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

ksrc=$1 patches=$2
branch=iommu-fastpath
[ -n "$ksrc" ] || die "usage: make apply KSRC=<your Linux 7.3 git tree>"
git -C "$ksrc" rev-parse --git-dir >/dev/null 2>&1 || die "$ksrc is not a git tree"
version=$(kernel_version "$ksrc/Makefile")
case $version in
7.3.*) ;;
*) die "$ksrc is Linux $version, not 7.3" ;;
esac
[ -z "$(git -C "$ksrc" status --porcelain --untracked-files=no)" ] ||
	die "$ksrc has uncommitted changes: commit or stash them first"
! git -C "$ksrc" rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
	die "$ksrc already has a branch $branch: delete or rename it first"

start=$(git -C "$ksrc" symbolic-ref -q --short HEAD || git -C "$ksrc" rev-parse HEAD)
git -C "$ksrc" checkout -q -b "$branch"
if ! "$WB_SCRIPTS/tree/apply.sh" "$ksrc" "$patches"; then
	git -C "$ksrc" checkout -q "$start"
	git -C "$ksrc" branch -q -D "$branch"
	die "nothing applied; $ksrc is back on $start"
fi
say "applied $(git -C "$ksrc" rev-list --count "$start..$branch") patches to $ksrc on branch $branch"
