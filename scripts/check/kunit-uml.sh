#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build and run KUnit suites the way their authors do: the tree's kunit.py
# on UML with a directory's .kunitconfig, or with a kunitconfig file of the
# workbench's.
# The kernel's whole console, KTAP included, goes to <log>, which
# guest-results.py reads like a guest's.
# Usage: kunit-uml.sh <tree> <build dir> <directory in the tree | kunitconfig file> <log>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# = 4 ] || die "usage: kunit-uml.sh <tree> <build dir> <directory in the tree | kunitconfig file> <log>"
tree=$1 out=$2 config=$3 log=$4
if [ -f "$config" ]; then
	config=$(realpath "$config")
else
	[ -f "$tree/$config/.kunitconfig" ] || die "$tree/$config has no .kunitconfig"
fi
mkdir -p "$out" "$(dirname "$log")"
out=$(realpath "$out") log=$(realpath "$log")
# Relative paths in ccache's hashes, as kbuild.sh has them: another clone
# of the workbench hits the same cache.
export CCACHE_BASEDIR
CCACHE_BASEDIR=$(dirname "$out")
cd "$tree"
python3 tools/testing/kunit/kunit.py run --kunitconfig "$config" --build_dir "$out" \
	--jobs "$(nproc)" --make_options CC="ccache gcc" --raw_output=all >"$log" 2>&1 ||
	{ show_tail "$log" 40; die "kunit.py run --kunitconfig $config failed"; }
