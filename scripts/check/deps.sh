#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove deps.sh's package list on a really fresh Debian 12: debootstrap a
# minimal root (no compiler, no rsync, nothing the machine happens to have),
# run deps.sh in it, which installs the packages and then fails naming any
# command the workbench calls that is still missing.
# Usage: deps.sh <workdir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

work=$1
root=$work/root
[ "$(id -u)" = 0 ] || die "check/deps.sh needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null || die "missing command debootstrap (package debootstrap)"
archive=$(archive_of bookworm)
[ -n "$archive" ] || archive=http://deb.debian.org/debian/

# Unmount what debootstrap or this script mounted in the root (/proc,
# /sys, device nodes), deepest first: a killed run leaves them mounted.
unmount_root() {
	findmnt -rn -o TARGET | awk -v root="$(realpath -m "$root")/" 'index($0, root) == 1' |
		sort -r | while read -r mnt; do umount "$mnt" || umount -l "$mnt"; done
}
unmount_root
rm -rf --one-file-system "$root"
mkdir -p "$root"
trap unmount_root EXIT
say "debootstrap: a minimal Debian 12 in $root from $archive"
debootstrap --variant=minbase bookworm "$root" "$archive" >"$work/debootstrap.log" 2>&1 || {
	show_tail "$work/debootstrap.log" 20
	die "debootstrap of Debian 12 failed"
}

# deps.sh and lib.sh where they sit in the checkout: lib.sh sources
# ../guest/protocol.sh.
mkdir -p "$root/wb/scripts" "$root/wb/guest"
cp "$WB_SCRIPTS/deps.sh" "$WB_SCRIPTS/lib.sh" "$root/wb/scripts/"
cp "$WB_SCRIPTS/../guest/protocol.sh" "$root/wb/guest/"
# Some maintainer scripts read /proc; apt manages without it where it
# cannot be mounted.
if ! findmnt "$root/proc" >/dev/null && ! mount -t proc proc "$root/proc"; then
	warn "could not mount /proc in $root: installing without it"
fi
chroot "$root" bash /wb/scripts/deps.sh
say "a fresh Debian 12 has every command the workbench calls after deps.sh"
# The root has done its job (about 2 GiB); one that failed stays to look into.
unmount_root
rm -rf --one-file-system "$root"
