#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make <tree> the pristine tree plus the series in <patch dir>, on branch "series",
# unless it already is; put the baseline worktree on the pristine tree plus the
# patches above the series' baseline-end marker (or the first
# $WB_BASELINE_PATCHES patches); record both revisions.
# Usage: tree.sh <tree> <patch dir> <baseline worktree> <state dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 patches=$2 baseline=$3 state=$4
mkdir -p "$state"
# The identity that commits made in the tree (and git am) carry.
[ -z "${WB_GIT_NAME:-}" ] || git -C "$tree" config user.name "$WB_GIT_NAME"
[ -z "${WB_GIT_EMAIL:-}" ] || git -C "$tree" config user.email "$WB_GIT_EMAIL"

rev() { git -C "$tree" rev-parse -q --verify "$1" 2>/dev/null || true; }

is_clean() { [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; }

# A cover letter's own text: its subject, an empty line and its body, up to
# the shortlog git adds.
cover_text() { # <cover letter>
	awk 'hdr == "" && /^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; cont = 1; next }
		hdr == "" && cont && /^ / { sub(/^ /, ""); subj = subj " " $0; next }
		hdr == "" { cont = 0 }
		hdr == "" && /^$/ { hdr = 1; print subj; print ""; next }
		hdr && /^[^ ].* \([0-9]+\):$/ { exit }
		hdr { print }' "$1"
}

# Each part's cover letter becomes the description of branch part/<part>, at
# the part's last commit, which 'make export' turns back into the letter.
describe_parts() {
	local name n done=0
	while read -r name n _; do
		done=$((done + n))
		git -C "$tree" branch -f "part/$name" \
			"$(git -C "$tree" rev-list --reverse pristine..HEAD | sed -n "${done}p")"
		[ ! -f "$patches/$name/0000-cover-letter.patch" ] ||
			git -C "$tree" config "branch.part/$name.description" \
				"$(cover_text "$patches/$name/0000-cover-letter.patch")"
	done < <(parts "$patches")
}

apply_series() {
	is_clean || die "$tree has uncommitted changes: commit and 'make export', or 'make reset-tree'"
	git -C "$tree" checkout -q -B series pristine
	"$WB_SCRIPTS/tree/apply.sh" "$tree" "$patches"
	describe_parts
	git -C "$tree" update-ref refs/wb/applied HEAD
	series_hash "$patches" >"$state/series.hash"
	say "tree: $(git -C "$tree" rev-list --count pristine..HEAD) patches applied to pristine"
}

marker=$(git -C "$tree" rev-parse --absolute-git-dir)/wb-break
[ ! -f "$marker" ] || die "break $(cat "$marker") is still applied to $tree (a 'make check-breaks' was killed):" \
	"'git -C $tree checkout -- . && rm $marker' undoes it"
is_clean || warn "$tree has uncommitted changes: building them; commit and 'make export' saves them"

if [ -z "$(rev refs/wb/applied)" ]; then
	apply_series
elif [ "$(series_hash "$patches")" != "$(cat "$state/series.hash" 2>/dev/null)" ]; then
	[ "$(rev HEAD)" = "$(rev refs/wb/applied)" ] ||
		die "patches/ changed and $tree has commits not exported: 'make export' keeps the tree's, 'make reset-tree' takes patches/"
	apply_series
elif [ "$(rev HEAD)" != "$(rev refs/wb/applied)" ]; then
	warn "$tree has commits not in patches/ yet: building them; 'make export' saves them"
fi

# WB_BASELINE_PATCHES overrides the marker: 0 measures the pristine tree.
count=${WB_BASELINE_PATCHES:-$(series_baseline_count "$patches/series")}
if [ "$count" = 0 ]; then
	base_rev=$(rev pristine)
else
	base_rev=$(git -C "$tree" rev-list --reverse --first-parent pristine..HEAD | sed -n "${count}p")
	[ -n "$base_rev" ] || die "series marks $count baseline patches but the tree has fewer"
fi
"$WB_SCRIPTS/tree/worktree.sh" "$tree" "$base_rev" "$baseline"

# What each kernel is built from; rewritten only when it changes.
echo "$base_rev" | write_if_changed "$state/baseline.rev"
{ rev HEAD; git -C "$tree" diff HEAD | sha256sum; } | write_if_changed "$state/patched.rev"
say "tree: baseline $(git -C "$tree" log -1 --format='%h %s' "$base_rev")"
say "tree: patched  $(git -C "$tree" log -1 --format='%h %s' HEAD)"
