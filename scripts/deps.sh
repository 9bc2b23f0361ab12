#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the workbench needs, only those missing, then
# check that every command the workbench calls is there: a command whose
# package is missing from the list is named here, not by a stage that
# fails later on a machine that happens to lack it.
# Usage: deps.sh
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

packages="build-essential bc bison flex libelf-dev libssl-dev cpio kmod
	xz-utils rsync git perl python3 python3-ply python3-git ccache sparse gnuplot-nox
	shellcheck gcc-i686-linux-gnu libc6-dev-i386-cross debootstrap
	qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu
	libc6-dev-arm64-cross busybox-static gdb"

# The commands the workbench's scripts, the kernel build and the guests call.
commands="make gcc bc bison flex perl python3 git ccache sparse gnuplot shellcheck
	cpio gzip xz tar rsync depmod sha256sum cmp diff patch awk timeout
	i686-linux-gnu-gcc aarch64-linux-gnu-gcc qemu-system-x86_64 qemu-system-aarch64
	busybox apt-get dpkg-deb dpkg-query debootstrap chroot findmnt flock mount umount gdb nm"

missing_commands() {
	for c in $commands; do
		command -v "$c" >/dev/null || printf ' %s' "$c"
	done
}

check_commands() {
	lost=$(missing_commands)
	[ -z "$lost" ] || die "commands missing after installing the packages:$lost"
}

installed_version() { # <package>
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}

missing=""
for p in $packages; do
	[ -n "$(installed_version "$p")" ] || missing="$missing $p"
done
if [ -z "$missing" ]; then
	check_commands
	exit 0
fi

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
check_commands
