#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's static arm64 busybox for the arm64 guest's initramfs.
# Usage: busybox-arm64.sh <output binary>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

out=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	apt-get update -qq >/dev/null
fi
(cd "$work" && apt-get download -qq busybox-static:arm64 >/dev/null 2>&1) ||
	{ apt-get update -qq >/dev/null; (cd "$work" && apt-get download -qq busybox-static:arm64); } ||
	die "missing package busybox-static:arm64 could not be downloaded"
dpkg-deb -x "$work"/busybox-static_*_arm64.deb "$work/root"
mkdir -p "$(dirname "$out")"
cp "$work/root/bin/busybox" "$out"
