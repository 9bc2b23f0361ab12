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

# The rows of this kernel and architecture, each checked before any boots
# (a bad row stops them all, and no console of an earlier run is left for
# a later step to read as this run's): "<label> <mode name> <suites>
# <seconds> WB_SMP=<n> WB_ICOUNT=<shift> <append>" (the clock of its
# devices column, scripts/lib.sh's devices_clock), the QEMU options of its
# devices (devices_qemu) on the next line.
rows() {
	local label row_arch row_kernel role suites devices seconds append
	while read -r label row_arch row_kernel role suites devices seconds append; do
		case $label in "#"* | "") continue ;; esac
		if [ "$row_arch" != "$arch" ] || [ "$row_kernel" != "$kernel" ]; then continue; fi
		# The table names modes by role (guest/protocol.sh), boots by name.
		mode=$(mode_name "$role") || die "$table: $label: unknown mode role '$role'"
		case $suites in kunit | -) ;; *) die "$table: $label: suites is kunit or -, not '$suites'" ;; esac
		[ "$seconds" != - ] || seconds=$WB_KUNIT_SECONDS
		case $seconds in *[!0-9]* | "") die "$table: $label: seconds '$seconds'" ;; esac
		# Devices this architecture lacks stop every boot here.
		qemu_args=$(devices_qemu "$arch" "$devices") || die "$table: $label: devices '$devices'"
		rm -f "$logs/$label.log"
		echo "$label $mode $suites $seconds $(devices_clock "$devices") $append"
		echo "$qemu_args"
	done <"$table"
}

rows >"$logs/boots-$kernel-$arch.rows"
[ -s "$logs/boots-$kernel-$arch.rows" ] || die "$table has no boot of the $kernel $arch kernel"
rc=0
# The rows on fd 3: nothing a boot runs can read them away.
while read -r label mode suites seconds smp icount append <&3 && read -r qemu_args <&3; do
	log=$logs/$label.log
	"$WB_SCRIPTS/check/test.sh" "$results" "boot $label ($kernel kernel, $mode)" \
		env WB_QEMU_ARGS="$qemu_args" "$smp" "$icount" \
		"$WB_SCRIPTS/run/boot.sh" "$arch" "$mode" "$image" "$initrd" "$log" "$seconds" \
		"$WB_KUNIT_APPEND $append" </dev/null || rc=1
	no_kunit=--no-kunit
	[ "$suites" != kunit ] || no_kunit=""
	# shellcheck disable=SC2086 # $no_kunit is an option or nothing
	"$WB_SCRIPTS/results/guest-results.py" $no_kunit "$tree" "$log" "$label" "$results" </dev/null || rc=1
done 3<"$logs/boots-$kernel-$arch.rows"
exit $rc
