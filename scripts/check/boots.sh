#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the boots of configs/boots for one kernel and architecture, each as a
# test of 'make check', and record what each console shows
# (guest-results.py).
# Usage: check/boots.sh <results> <boots table> <kernel> <arch> <image> <initramfs> <tree>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# = 7 ] || die "usage: check/boots.sh <results> <boots> <kernel> <arch> <image> <initramfs> <tree>"
results=$1 table=$2 kernel=$3 arch=$4 image=$5 initrd=$6 tree=$7
logs=$(dirname "$results")

rc=0
found=""
# The table on fd 3: nothing a boot runs can read it away.
while read -r label row_arch row_kernel mode suites devices seconds append <&3; do
	case $label in "#"* | "") continue ;; esac
	if [ "$row_arch" != "$arch" ] || [ "$row_kernel" != "$kernel" ]; then
		continue
	fi
	found=1
	log=$logs/$label.log
	[ "$seconds" != - ] || seconds=$WB_KUNIT_SECONDS
	# A row naming devices this architecture lacks stops the boots here.
	qemu_args=$(devices_qemu "$arch" "$devices") || exit 1
	clock=$(devices_clock "$devices")
	# shellcheck disable=SC2086 # $clock: devices_clock's two assignments
	"$WB_SCRIPTS/check/test.sh" "$results" "boot $label ($kernel kernel, $mode)" \
		env WB_QEMU_ARGS="$qemu_args" $clock \
		"$WB_SCRIPTS/run/boot.sh" "$arch" "$mode" "$image" "$initrd" "$log" "$seconds" \
		"$WB_KUNIT_APPEND $append" </dev/null || rc=1
	no_kunit=--no-kunit
	[ "$suites" != kunit ] || no_kunit=""
	# shellcheck disable=SC2086 # $no_kunit is an option or nothing
	"$WB_SCRIPTS/results/guest-results.py" $no_kunit "$tree" "$log" "$label" "$results" </dev/null || rc=1
done 3<"$table"
[ -n "$found" ] || die "$table has no boot of the $kernel $arch kernel"
exit $rc
