#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write each part of the series (<patch dir>/parts) as mails ready for git
# send-email, into <out>/<part>/: subjects "[PATCH v<n> k/m]" (or "[RFC PATCH
# v<n> k/m]"), the sender as author and in each Signed-off-by instead of the
# project's placeholder identity, To the maintainers and reviewers the
# tree's get_maintainer.pl names, Cc the lists it names and the part's own.
# The cover letters keep export's base-commit and prerequisite-patch-id
# trailers (the form b4 reads).
# Usage: posting.sh <tree> <patch dir> <out> <version> <sender> <placeholder>
#   sender, placeholder: "Full Name <address>"
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$(realpath "$1") patches=$(realpath "$2") out=$3 version=$4 sender=$5 placeholder=$6

# A person who can sign the DCO and receive replies, not the project.
case $sender in
"$placeholder") die "refusing to post as the project's placeholder ($placeholder): make posting GIT_NAME='Your Name' GIT_EMAIL=you@your.domain" ;;
*' <'*@*.*'>') ;;
*) die "the sender must be 'Full Name <address>', not '$sender': set GIT_NAME and GIT_EMAIL" ;;
esac
sender_name=${sender% <*}
placeholder_name=${placeholder% <*}

# One line of addresses, ", "-separated, from get_maintainer.pl's output.
addresses() { paste -sd, - | sed 's/,/, /g'; }

# get_maintainer.pl on a part's patches, without git history: <options>
maintainers_of() { # <part dir> <option>...
	local dir=$1
	shift
	# shellcheck disable=SC2046 # one word per patch (no blanks in their names)
	(cd "$tree" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		"$@" $(find "$dir" -name '0*.patch' ! -name 0000-cover-letter.patch | sort))
}

# One mail of a part: the version and kind in its subject, the sender for the
# placeholder, the To and Cc headers after its Date.
write_mail() { # <patch> <kind> <to> <cc> <dest>
	local prefix="PATCH v$version"
	[ "$2" != RFC ] || prefix="RFC $prefix"
	awk -v prefix="$prefix" -v ph="$placeholder" -v phn="$placeholder_name" \
		-v sender="$sender" -v sn="$sender_name" -v to="$3" -v cc="$4" '
		function swap(s, a, b,  r, i) {
			for (r = ""; (i = index(s, a)) > 0; s = substr(s, i + length(a))) r = r substr(s, 1, i - 1) b
			return r s
		}
		!body && /^Subject: \[PATCH / { sub(/^Subject: \[PATCH /, "Subject: [" prefix " ") }
		function folded(s) { gsub(/, /, ",\n ", s); return s }
		!body && /^Date: / { print; print "To: " folded(to); print "Cc: " folded(cc); next }
		!body && /^$/ { body = 1 }
		{ $0 = swap($0, ph, sender) }
		body && index($0, phn " (") == 1 { $0 = sn substr($0, length(phn) + 1) }
		{ print }' "$1" >"$5"
}

post_part() { # <name> <kind> <lists>
	local name=$1 kind=$2 lists=$3 src=$patches/$1 dest=$out/$1 to cc f
	[ -f "$src/0000-cover-letter.patch" ] || die "$src has no cover letter: run make export"
	to=$(maintainers_of "$src" --nol | addresses)
	# shellcheck disable=SC2086 # one word per list
	cc=$({ maintainers_of "$src" --nom --nor; printf '%s\n' $lists; } | awk '!seen[$0]++' | addresses)
	[ -n "$to" ] || die "get_maintainer.pl names no maintainer for $name"
	rm -rf "$dest"
	mkdir -p "$dest"
	for f in "$src"/0*.patch; do
		write_mail "$f" "$kind" "$to" "$cc" "$dest/v$version-${f##*/}"
	done
	! grep -rlF "$placeholder" "$dest" >/dev/null ||
		die "$name: the placeholder identity is still in $(grep -rlF "$placeholder" "$dest" | head -1)"
	say "$name: $(find "$dest" -name '*.patch' | wc -l) mails in $dest"
	say "  To: $to"
	say "  Cc: $cc"
}

mkdir -p "$out"
while read -r name _ kind lists; do
	post_part "$name" "$kind" "$lists"
done < <(parts "$patches")
say "send each part, in order, once the one before it is on the list:"
say "  git send-email --dry-run $out/<part>/*.patch   (then without --dry-run)"
