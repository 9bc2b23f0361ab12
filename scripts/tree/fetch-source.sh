#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's <package> .deb (linux-source-7.3) from <suite> through a
# private apt source list and state, so that the machine's own apt
# configuration, and what else it installs or upgrades, stay untouched.
# Take exactly <version>; if the suite has dropped it, take its newest
# version of the same package and say so. Unpack the .deb and print the
# path of its source tarball.
# Usage: fetch-source.sh <package> <version> <suite> <work dir>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

package=$1 version=$2 suite=$3
mkdir -p "$4"
work=$(realpath "$4")
tarball=$work/root/usr/src/$package.tar.xz
if [ -r "$tarball" ] && [ -s "$work/version" ]; then
	echo "$tarball"
	exit 0
fi

# The archive the machine takes <suite> from (bookworm-security is on the
# security archive); else the one it takes Debian itself from.
archive=$(archive_of "$suite")
# shellcheck source=/dev/null
[ -n "$archive" ] || archive=$(archive_of "$(. /etc/os-release && echo "$VERSION_CODENAME")")
[ -n "$archive" ] || archive=http://deb.debian.org/debian/
rm -rf "${work:?}"/*
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/root" "$work/parts"
echo "deb $archive $suite main" >"$work/sources.list"
private=(-o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts="$work/parts"
	-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache")

say "fetching $package $version from Debian's $suite (private apt list: the machine's apt is untouched)" >&2
apt-get -q "${private[@]}" update >"$work/apt.log" 2>&1 ||
	{ show_tail "$work/apt.log" 20; die "apt-get update of $archive $suite failed"; }
versions=$(apt-cache "${private[@]}" madison "$package" 2>/dev/null | awk -F' *[|] *' '{ print $2 }')
if ! grep -qxF "$version" <<<"$versions"; then
	newest=$(head -n 1 <<<"$versions")
	[ -n "$newest" ] || die "$suite has no $package (expected $version)"
	warn "$suite no longer has $package $version; taking its newest, $newest (numbers may differ)"
	version=$newest
fi
(cd "$work/cache/archives" && apt-get -q "${private[@]}" download "$package=$version") \
	>>"$work/apt.log" 2>&1 || { show_tail "$work/apt.log" 20; die "downloading $package $version failed"; }
dpkg-deb -x "$work"/cache/archives/"$package"_*.deb "$work/root"
[ -r "$tarball" ] || die "$package $version holds no ${tarball#"$work/root"}"
echo "$version" >"$work/version"
echo "$tarball"
