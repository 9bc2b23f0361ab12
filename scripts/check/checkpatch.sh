#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every patch of the series: a patch passes with
# no errors, no warnings and no checks. The one warning that asks a question
# ("added files: does MAINTAINERS need updating?") is answered: it passes
# when every file the patch adds already has a maintainer in MAINTAINERS.
# Usage: checkpatch.sh <tree> <patch dir> <results>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 dir=$(realpath "$2") results=$3
# checkpatch's SPDX check runs Debian's python3, which has ply and git.
export PATH=/usr/bin:$PATH

# The pristine tree is a source tarball without upstream history, so checkpatch
# cannot look up the commit a Fixes: tag names (UNKNOWN_COMMIT_ID); those ids
# are checked against upstream by hand.
checkpatch() { # <patch> [checkpatch options]
	"$tree/scripts/checkpatch.pl" --root="$tree" --strict --color=never \
		--ignore UNKNOWN_COMMIT_ID "$@" 2>&1 || true
}

clean() { grep -q '^total: 0 errors, 0 warnings, 0 checks'; }

added_files() { # <patch>
	awk '/^diff --git / { f = substr($4, 3) } /^new file mode/ { print f }' "$1"
}

# Every added file is matched by a MAINTAINERS entry with a maintainer.
maintained() { # <patch>
	for f in $(added_files "$1"); do
		[ -n "$(cd "$tree" && ./scripts/get_maintainer.pl --no-git \
			--no-git-fallback --nol --no-rolestats -f "$f" 2>/dev/null)" ] || return 1
	done
}

for p in $(series_patches "$dir/series"); do
	report=$(checkpatch "$dir/$p")
	if echo "$report" | clean; then
		record "$results" PASS "checkpatch $p"
	elif checkpatch "$dir/$p" --ignore FILE_PATH_CHANGES | clean && maintained "$dir/$p"; then
		record "$results" PASS "checkpatch $p" "its new files have maintainers"
	else
		echo "$report" | grep -v '^$' | sed 's/^/    /' | tail -n 40
		record "$results" FAIL "checkpatch $p"
	fi
done
