#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every architecture's kernel and dma_map_benchmark tools after every
# patch of the series (bisectability), in a worktree of its own,
# incrementally. Each architecture's config fragments are archs/<arch>.sh's.
# Usage: bisect.sh <tree> <work dir> <Linux 6.12 tool dir> <results> <arch>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -ge 5 ] || die "usage: bisect.sh <tree> <work dir> <Linux 6.12 tool dir> <results> <arch>..."
tree=$1 work=$2 old_tool=$3 results=$4
shift 4
mkdir -p "$work"
for commit in $(git -C "$tree" rev-list --reverse pristine..HEAD); do
	"$WB_SCRIPTS/tree/worktree.sh" "$tree" "$commit" "$work/linux"
	subject=$(git -C "$tree" log -1 --format=%s "$commit" | tr -d '#')
	for arch; do
		# shellcheck disable=SC2046 # a list of fragments
		if "$WB_SCRIPTS/build/kbuild.sh" "$arch" "$work/linux" "$work/out-$arch" \
			$(arch_fragments "$arch") >"$work/$arch.log" 2>&1 &&
			"$WB_SCRIPTS/build/tools.sh" "$arch" "$work/linux" "$old_tool" \
				"$work/linux" "$work/tools-$arch" >>"$work/$arch.log" 2>&1; then
			record "$results" PASS "builds on $arch: $subject"
		else
			tail -n 20 "$work/$arch.log"
			record "$results" FAIL "builds on $arch: $subject"
		fi
	done
done
