#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the workbench needs, only those missing.
# Usage: deps.sh
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

packages="build-essential bc bison flex libelf-dev libssl-dev cpio kmod
	xz-utils rsync git perl python3 python3-ply python3-git ccache sparse gnuplot-nox
	shellcheck gcc-i686-linux-gnu libc6-dev-i386-cross
	qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu
	libc6-dev-arm64-cross busybox-static"

installed_version() { # <package>
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}

missing=""
for p in $packages; do
	[ -n "$(installed_version "$p")" ] || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root or install them)"
say "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || warn "apt-get update failed; trying the cached lists"
# shellcheck disable=SC2086 # word splitting of the package list is wanted
if ! apt-get install -y -qq --no-install-recommends --allow-downgrades $missing >/dev/null; then
	for p in $missing; do
		apt-get install -y -qq --no-install-recommends --allow-downgrades "$p" >/dev/null ||
			die "missing package $p could not be installed"
	done
fi
