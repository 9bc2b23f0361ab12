#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The modules step: load each of the workbench's test modules (KUnit runs
# their suites at load), give each a subtest holding the KTAP of the suites
# it added, from debugfs, and remove it again (wb_dma_test holds edu, which
# the benchmark takes next). wb.<module>=<param>=<value>,... on the kernel
# command line sets a module's parameters (several such words add up); a
# module that does not load fails its test.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

KUNIT_DEBUGFS=/sys/kernel/debug/kunit

kunit_suites() {
	for dir in "$KUNIT_DEBUGFS"/*; do
		[ ! -e "$dir/results" ] || echo "${dir##*/}"
	done
}

# The suites debugfs holds now and did not hold before (/tmp/suites.before).
# Not "grep -v -f": busybox's matches every line with an empty pattern file.
new_suites() {
	for suite in $(kunit_suites); do
		grep -qxF "$suite" /tmp/suites.before || echo "$suite"
	done
}

# A suite's results file is a KTAP document of one test, the suite: print
# the suite as test <number> of this level, without the document's header.
print_suite() { # <suite> <number>
	awk -v n="$2" 'NR <= 2 && (/^KTAP version/ || /^1\.\./) { next }
		sub(/^ok 1 /, "ok " n " ") || sub(/^not ok 1 /, "not ok " n " ") { }
		{ print }' "$KUNIT_DEBUGFS/$1/results"
}

# Load <module>, report its suites as its subtests, remove it.
module_suites() { # <module.ko>
	local name rc=0 suites n=0 failed=0
	name=$(basename "$1" .ko)
	kunit_suites >/tmp/suites.before
	# shellcheck disable=SC2046 # parameters, comma separated
	insmod "$1" $(wb_arg_all "$name" | tr , ' ') || rc=$?
	if [ "$rc" != 0 ]; then
		ktap_print_msg "insmod $name exited $rc"
		return 1
	fi
	suites=$(new_suites)
	# shellcheck disable=SC2086 # a list
	ktap_set_plan "$(echo $suites | wc -w)"
	for suite in $suites; do
		n=$((n + 1))
		print_suite "$suite" "$n"
		! tail -n 1 "$KUNIT_DEBUGFS/$suite/results" | grep -q '^not ok' || failed=1
	done
	rmmod "$name"
	return "$failed"
}

set -- /lib/modules/*.ko
[ -e "$1" ] || set --
ktap_set_plan $#
for ko; do
	ktap_subtest "$(basename "$ko" .ko)" module_suites "$ko"
done
ktap_finished
