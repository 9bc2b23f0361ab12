#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# W=1 and sparse (C=2) on the C files the series touches, in the patched
# tree and in the pristine tree with the same config: fail on any warning
# the pristine tree does not have.
# Usage: warnings.sh <arch> <tree> <out> <pristine tree> <pristine out> <results> <fragment>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 tree=$2 out=$3 pristine=$4 pristine_out=$5 results=$6
shift 6
name="W=1 + sparse $arch"

# Kernel C files only: tools/ is userspace, built by its own Makefiles.
files=$(git -C "$tree" diff --name-only --diff-filter=AM pristine..HEAD -- '*.c' ':!tools/')
if [ -z "$files" ]; then
	record "$results" SKIP "$name" "the series touches no C file"
	exit 0
fi
"$WB_SCRIPTS/tree/worktree.sh" "$tree" pristine "$pristine"
"$WB_SCRIPTS/build/kconfig.sh" "$arch" "$pristine" "$pristine_out" "$@"

# One line per diagnostic, without paths and line numbers, so that the same
# warning in both trees compares equal even when the code around it moved.
# The object a C file is compiled into: its own, or, for a file another one
# #includes (a KUnit suite built into the code it tests), the includer's.
object_of() { # <tree> <file>
	includer=$(grep -lF "#include \"${2##*/}\"" "$1/$(dirname "$2")"/*.c 2>/dev/null | head -n 1)
	[ -z "$includer" ] || set -- "$1" "${includer#"$1"/}"
	echo "${2%.c}.o"
}

# The objects of the touched files that this configuration builds (the
# patched kernel is built by now), and those of $WB_ALONE, which kbuild
# compiles alone (single targets) although the configuration leaves them
# out: any other file would only show what its missing options break, in
# both trees alike or not.
built_objects() { # <tree>
	for f in $files; do
		[ -f "$1/$f" ] || continue
		obj=$(object_of "$1" "$f")
		if [ -f "$out/$obj" ] || is_alone "$obj"; then
			echo "$obj"
		else
			echo "$f" >>"$out/warnings.unbuilt"
		fi
	done | sort -u | tr '\n' ' '
}

is_alone() { # <object>
	case " ${WB_ALONE:-} " in *" $1 "*) return 0 ;; esac
	return 1
}

diagnostics() { # <tree> <out>
	objects=$(built_objects "$1")
	[ -n "$objects" ] || return 0
	# shellcheck disable=SC2086 # a list of objects
	kernel_make "$arch" "$(realpath "$1")" "$(realpath "$2")" -k W=1 C=2 $objects 2>&1 |
		grep -E '(warning|error):' |
		sed -E 's#^([^ :]*/)?([^/ :]+):[0-9]+(:[0-9]+)?:#\2:#' | LC_ALL=C sort || true
}

rm -f "$out/warnings.unbuilt"
diagnostics "$pristine" "$pristine_out" >"$out/warnings.pristine"
diagnostics "$tree" "$out" >"$out/warnings.patched"
LC_ALL=C comm -13 "$out/warnings.pristine" "$out/warnings.patched" >"$out/warnings.new"
count=$(echo "$files" | wc -l)
unbuilt=$(sort -u "$out/warnings.unbuilt" 2>/dev/null | wc -l)
if [ ! -s "$out/warnings.new" ]; then
	record "$results" PASS "$name" "$((count - unbuilt)) files built (${WB_ALONE:+$WB_ALONE alone, }the rest in this config), no new warnings"
	[ "$unbuilt" = 0 ] || say "  not built for $arch: $(sort -u "$out/warnings.unbuilt" | tr '\n' ' ')"
else
	sed 's/^/    /' "$out/warnings.new"
	record "$results" FAIL "$name" "$(wc -l <"$out/warnings.new") new warnings"
fi
