#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure a kernel as allnoconfig plus fragments, unless it already is
# (with every requested option still set);
# fail when a requested option did not survive (missing dependencies), except
# an option the tree does not define at all.
# Usage: kconfig.sh <arch> <tree> <outdir> <fragment>...
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 tree=$2 out=$3
shift 3
mkdir -p "$out"

# Whether the tree's Kconfig defines CONFIG_<symbol>: the series adds options
# (its KUnit suites) that the baseline and Linux 7.3 do not have.
defined() { # <symbol>
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$1\$" "$tree"
}

lost_options() {
	grep -h '^CONFIG_' "$@" | sort -u | while IFS= read -r line; do
		symbol=${line%%=*}
		defined "${symbol#CONFIG_}" || continue
		case $line in
		*=n) grep -qx "# ${line%=n} is not set" "$out/.config" || echo "$line" ;;
		*) grep -qx "$line" "$out/.config" || echo "$line" ;;
		esac
	done
}

# Configured from these fragments, and nothing lost since (a tree whose
# Kconfig changed under the configuration, as across a rebase, drops options).
if cmp -s <(cat "$@") "$out/wb.config" 2>/dev/null && [ -f "$out/.config" ] &&
	[ -z "$(lost_options "$@")" ]; then
	exit 0
fi

cat "$@" >"$out/wb.config.new"
kernel_make "$arch" "$tree" "$(realpath "$out")" -s KCONFIG_ALLCONFIG="$(realpath "$out/wb.config.new")" \
	allnoconfig >"$out/config.log" 2>&1 ||
	{ show_tail "$out/config.log" 40; die "configuring $arch failed"; }
lost=$(lost_options "$@")
[ -z "$lost" ] || die "$arch config lost (missing dependencies?): $(echo "$lost" | tr '\n' ' ')"
mv "$out/wb.config.new" "$out/wb.config"
