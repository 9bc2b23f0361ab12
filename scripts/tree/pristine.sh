#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source tarball into <tree> and make it a git
# repository whose root commit, tagged "pristine", is the source as Debian
# ships it: Linux as it is, which the series applies to.
# Usage: pristine.sh <tree> <tarball> <package version> <major.minor>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tree=$1 tarball=$2 pkgver=$3 series=$4

# Trees made before the tag was renamed carry it as "base": keep them, and
# the series commits and worktrees they hold.
if git -C "$tree" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 &&
	! git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	git -C "$tree" tag pristine base
fi

if git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	version=$(git -C "$tree" show pristine:Makefile | kernel_version -)
	case $version in
	"$series".*) say "pristine: Linux $version (kept)"; exit 0 ;;
	*) say "pristine: the tree holds Linux $version, not $series: unpacking again" ;;
	esac
fi

[ -r "$tarball" ] || die "source tarball $tarball is missing"
rm -rf "$tree" "$tree.unpack"
mkdir -p "$tree.unpack"
say "unpacking $tarball"
tar -xJf "$tarball" -C "$tree.unpack"
mv "$tree.unpack"/linux-source-* "$tree"
rmdir "$tree.unpack"

version=$(kernel_version "$tree/Makefile")
case $version in
"$series".*) ;;
*) die "the source is Linux $version, expected $series.x ($tarball)" ;;
esac

say "making the source a git repository (about a minute)"
git -C "$tree" init -q -b series
git -C "$tree" config gc.auto 0
git -C "$tree" config feature.manyFiles true
# Debian's tarball ignores every top-level path in .gitignore: force-add.
git -C "$tree" add -A -f
# Fixed identity and date: the root commit, and so every base-commit line of
# the exported series, is the same on every machine (the identity's name
# predates the tag's: changing it would change that hash).
GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost \
GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost \
GIT_AUTHOR_DATE='2025-01-01T00:00:00Z' GIT_COMMITTER_DATE='2025-01-01T00:00:00Z' \
	git -C "$tree" commit -q -m "Linux $version (Debian linux-source-$series $pkgver)"
git -C "$tree" tag pristine
say "pristine: Linux $version (Debian linux-source-$series $pkgver), commit $(git -C "$tree" rev-parse --short pristine)"
