#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every architecture's kernel and dma_map_benchmark tools after every
# patch of the series (bisectability), in a worktree of its own,
# incrementally.
# Usage: bisect.sh <tree> <work dir> <config dir> <Linux 6.12 tool dir> <results>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 work=$2 configs=$3 old_tool=$4 results=$5
mkdir -p "$work"
for commit in $(git -C "$tree" rev-list --reverse pristine..HEAD); do
	"$(dirname "$0")/worktree.sh" "$tree" "$commit" "$work/linux"
	subject=$(git -C "$tree" log -1 --format=%s "$commit" | tr -d '#')
	for arch in x86_64 arm64; do
		if "$(dirname "$0")/kbuild.sh" "$arch" "$work/linux" "$work/out-$arch" \
			"$configs/common.config" "$configs/$arch.config" >"$work/$arch.log" 2>&1 &&
			"$(dirname "$0")/tools.sh" "$arch" "$work/linux" "$old_tool" \
				"$work/linux" "$work/tools-$arch" >>"$work/$arch.log" 2>&1; then
			record "$results" PASS "builds on $arch: $subject"
		else
			tail -n 20 "$work/$arch.log"
			record "$results" FAIL "builds on $arch: $subject"
		fi
	done
done
