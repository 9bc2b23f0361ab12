# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash disable=SC2034 # counters, read by guest/lib.sh
# A stand-in for the kernel's tools/testing/selftests/kselftest/
# ktap_helpers.sh, so that the kit's tests (tests/hw/) need no tree: the
# functions and counters the guest's steps use, printing the same lines.
KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_XFAIL=0 KTAP_CNT_SKIP=0
KSFT_PASS=0 KSFT_FAIL=1 KSFT_SKIP=4 KSFT_NUM_TESTS=0

ktap_print_header() { echo "TAP version 13"; }
ktap_print_msg() { echo "# $*"; }
ktap_set_plan() { KSFT_NUM_TESTS=$1; echo "1..$1"; }
ktap_result_line() { # <ok|not ok> <description> [directive]
	echo "$1 $KTAP_TESTNO $2${3:+ # $3}"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
}
ktap_test_pass() { ktap_result_line ok "$1"; KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1)); }
ktap_test_skip() { ktap_result_line ok "$1" SKIP; KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1)); }
ktap_test_fail() { ktap_result_line "not ok" "$1"; KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1)); }
ktap_finished() {
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:$KTAP_CNT_XFAIL xpass:0 skip:$KTAP_CNT_SKIP error:0"
	[ $((KTAP_CNT_PASS + KTAP_CNT_SKIP + KTAP_CNT_XFAIL)) -eq "$KSFT_NUM_TESTS" ] || exit "$KSFT_FAIL"
	exit "$KSFT_PASS"
}
