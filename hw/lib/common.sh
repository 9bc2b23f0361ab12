# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (hw-run.sh), what its parts share: saying and
# refusing, sysfs lists and links read, JSON written. Sourced by hw-run.sh
# after the guest's lib.sh, whose say it replaces.

say() { printf 'hw-run: %s\n' "$*" >&2; }
# A refusal touches nothing: said, and exit 2.
refuse() { say "refused: $*"; exit 2; }

# How many numbers a sysfs list ("0-3,8") holds.
list_count() { # <list>
	echo "$1" | tr , '\n' | awk -F- 'NF == 2 { n += $2 - $1 + 1; next } NF == 1 { n++ } END { print n + 0 }'
}

# The last part of a symbolic link's target, empty if there is none.
link_name() { # <path>
	if [ -L "$1" ]; then basename "$(readlink "$1")"; fi
}

json_str() { # <text>: a JSON string
	printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

json_list() { # <comma-separated words> <quote>: a JSON array
	echo "$1" | awk -F, -v q="$2" '{ for (i = 1; i <= NF; i++) printf "%s%s%s%s", (i > 1 ? "," : ""), q, $i, q }
		END { printf "\n" }' | sed 's/^/[/; s/$/]/'
}
