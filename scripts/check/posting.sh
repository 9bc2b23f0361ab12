#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test 'make posting': it must refuse the project's placeholder identity;
# for a real one, every part's mails must carry the version (and RFC where
# patches/parts says so), the sender as From and in no place the
# placeholder, To a maintainer, Cc each list the part names, the cover
# letter's base-commit (and, after the first part, the earlier parts as
# prerequisite-patch-id); and git am of all parts' mails, in order, onto the
# pristine tree must give the tree's own result.
# Usage: check/posting.sh <tree> <patch dir> <results> <placeholder identity>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$(realpath "$1") patches=$(realpath "$2") results=$3 placeholder=$4
sender="Test Sender <test.sender@example.net>"
work=$(mktemp -d)
trap 'git -C "$tree" worktree remove --force "$work/am" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

check() { # <name> <command>...
	local name=$1
	shift
	if "$@" >"$work/out" 2>&1; then
		record "$results" PASS "$name"
	else
		sed 's/^/    /' "$work/out" | tail -n 5
		record "$results" FAIL "$name"
	fi
}

refuses_placeholder() {
	! "$WB_SCRIPTS/tree/posting.sh" "$tree" "$patches" "$work/refused" 2 "$placeholder" "$placeholder" &&
		[ ! -d "$work/refused" ]
}
check "posting refuses the project's placeholder identity" refuses_placeholder
check "posting writes every part" "$WB_SCRIPTS/tree/posting.sh" "$tree" "$patches" "$work/mails" 2 "$sender" "$placeholder"

# <part>'s mails, cover letter first (file names without blanks)
mails() { find "$work/mails/$1" -name '*.patch' | sort; }
# A mail's header <name>, its folded lines joined
header() { # <mail> <name>
	awk -v h="$2: " 'found && /^[ \t]/ { line = line $0; next } found { exit }
		index($0, h) == 1 { found = 1; line = $0 } END { print line }' "$1"
}

part_headers_right() { # <name> <kind> <lists>
	local name=$1 kind=$2 lists=$3 m n=0 total list
	total=$(mails "$name" | wc -l)
	for m in $(mails "$name"); do # one word per mail
		header "$m" Subject | grep -q "^Subject: \[$([ "$kind" = RFC ] && echo 'RFC ')PATCH v2 0*$n/0*$((total - 1))\]" ||
			{ echo "$m: $(header "$m" Subject)"; return 1; }
		[ "$(header "$m" From)" = "From: $sender" ] || { echo "$m: $(header "$m" From)"; return 1; }
		header "$m" To | grep -q '@' || { echo "$m: no To"; return 1; }
		for list in $lists; do
			header "$m" Cc | grep -qF "$list" || { echo "$m: Cc lacks $list"; return 1; }
		done
		n=$((n + 1))
	done
	# shellcheck disable=SC2046 # one word per mail
	! grep -lF "$placeholder" $(mails "$name") || return 1
}

cover_names_base() { # <name> <earlier patches>
	local cover
	cover=$(mails "$1" | head -1)
	grep -q "^base-commit: $(git -C "$tree" rev-parse pristine)\$" "$cover" &&
		[ "$(grep -c '^prerequisite-patch-id: ' "$cover")" = "$2" ]
}

earlier=0
while read -r name n kind lists; do
	check "posting: $name: subjects, sender, To and Cc" part_headers_right "$name" "$kind" "$lists"
	check "posting: $name: base-commit and its $earlier prerequisites" cover_names_base "$name" "$earlier"
	earlier=$((earlier + n))
done < <(parts "$patches")

applies_as_the_tree() {
	# shellcheck disable=SC2046 # one word per mail
	git -C "$tree" worktree add -q --detach "$work/am" pristine &&
		git -C "$work/am" -c user.name=am -c user.email=am@localhost am -q \
			$(find "$work/mails" -name '*.patch' ! -name '*-0000-cover-letter.patch' | sort) &&
		[ "$(git -C "$work/am" rev-parse 'HEAD^{tree}')" = "$(git -C "$tree" rev-parse 'HEAD^{tree}')" ]
}
check "posting: all parts' mails apply with git am and give the tree" applies_as_the_tree
