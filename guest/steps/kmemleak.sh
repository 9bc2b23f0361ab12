#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The kmemleak step: kmemleak reports objects unreferenced for 5 s over two
# scans, so scan, wait, scan again; its report goes to the console.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

leaks=/sys/kernel/debug/kmemleak
if [ ! -w "$leaks" ]; then
	ktap_skip_all "no kmemleak in this kernel"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 1
echo scan >"$leaks"
sleep 6
echo scan >"$leaks"
sed 's/^/# /' "$leaks"
if grep -q 'unreferenced object' "$leaks"; then
	ktap_test_fail "no unreferenced object"
else
	ktap_test_pass "no unreferenced object"
fi
ktap_finished
