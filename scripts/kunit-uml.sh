#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build and run the KUnit suites of one directory of the tree the way their
# authors do: the tree's kunit.py on UML with the directory's .kunitconfig.
# The kernel's whole console, KTAP included, goes to <log>, which
# guest-results.py reads like a guest's.
# Usage: kunit-uml.sh <tree> <build dir> <directory in the tree> <log>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 4 ] || die "usage: kunit-uml.sh <tree> <build dir> <directory in the tree> <log>"
tree=$1 out=$2 dir=$3 log=$4
[ -f "$tree/$dir/.kunitconfig" ] || die "$tree/$dir has no .kunitconfig"
mkdir -p "$out" "$(dirname "$log")"
out=$(realpath "$out") log=$(realpath "$log")
# Relative paths in ccache's hashes, as kbuild.sh has them: another clone
# of the workbench hits the same cache.
export CCACHE_BASEDIR
CCACHE_BASEDIR=$(dirname "$out")
cd "$tree"
python3 tools/testing/kunit/kunit.py run --kunitconfig "$dir" --build_dir "$out" \
	--jobs "$(nproc)" --make_options CC="ccache gcc" --raw_output=all >"$log" 2>&1 ||
	{ show_tail "$log" 40; die "kunit.py run --kunitconfig $dir failed"; }
