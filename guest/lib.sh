# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Helpers for the guest's jobs and steps; sourced by busybox sh.

# Where these scripts live: /wb in the guests; the hardware kit (hw/) sets
# WB_DIR to its own copy, so that one code path serves guest and hardware.
WB_DIR=${WB_DIR:-/wb}
# The sysfs the steps read and write: another root only for the kit's tests
# on a fake tree (tests/hw/).
WB_SYSFS=${WB_SYSFS:-/sys}
# The steps' scratch files: /tmp in the guests; the kit's own directory on a
# machine, where root writing fixed names in /tmp would follow whatever
# another user left there.
WB_TMP=${WB_TMP:-/tmp}

# The result protocol the host reads: modes, markers, JSON kinds, counters.
# shellcheck source=guest/protocol.sh
. "$WB_DIR/protocol.sh"
# shellcheck source=guest/objects.sh
. "$WB_DIR/objects.sh"

# The kernel's own KTAP helpers (tools/testing/selftests/kselftest/), which
# the initramfs takes from the tree the kernel was built from.
# shellcheck source=/dev/null
. "$WB_DIR/ktap_helpers.sh"

# The name of the IOMMU mode of <role> (guest/protocol.sh: the data that
# picks modes, configs/boots and tests/breaks/, names them by role, as
# scripts/lib.sh's mode_name reads them); fails for an unknown role.
mode_name() { # <role>
	case $1 in "" | *[!a-z]*) return 1 ;; esac
	eval "set -- \"\${WB_MODE_$(echo "$1" | tr '[:lower:]' '[:upper:]'):-}\""
	[ -n "$1" ] && echo "$1"
}

# The words wb_arg reads: the kernel command line, or on hardware the
# kit's WB_ARGS, which passes the matrix as the host passes it to a guest.
wb_cmdline() {
	if [ -n "${WB_ARGS+set}" ]; then echo "$WB_ARGS"; else cat /proc/cmdline; fi
}

# The value of wb.<name>= on the kernel command line, or <default>.
wb_arg() { # <name> [default]
	cmdline=$(wb_cmdline)
	for word in $cmdline; do
		case $word in "wb.$1="*) echo "${word#*=}"; return ;; esac
	done
	echo "${2:-}"
}

# Every value of wb.<name>= on the kernel command line, joined by commas
# (a mode's line and a boot's line may each give a module parameters).
wb_arg_all() { # <name>
	cmdline=$(wb_cmdline)
	all=
	for word in $cmdline; do
		case $word in "wb.$1="*) all="${all:+$all,}${word#*=}" ;; esac
	done
	echo "$all"
}

# Copy standard input to standard output, each line indented one KTAP level
# as soon as it is read. Not sed: busybox sed holds a line back to know
# whether it is the last, so an endless step's latest line (the trace step's
# start line) would never reach the console.
indent_lines() {
	awk '{ print "    " $0; fflush() }'
}

# Run <command> as the subtest <name> of the current KTAP level: its own
# KTAP, indented one level, then the result line here, from its exit status
# (0 passed, 4 skipped, anything else failed). The subtest counts its tests
# afresh: it runs in a subshell, as steps and the kselftest helpers expect.
ktap_subtest() { # <name> <command> [args...]
	local name=$1 status
	shift
	status=$(mktemp "$WB_TMP/status.XXXXXX")
	# The status is written either way: "set -e" must not end the group first.
	{
		if (
			# shellcheck disable=SC2034 # the kselftest helpers' counters
			KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0 KTAP_CNT_XFAIL=0
			echo "KTAP version 1"
			echo "# Subtest: $name"
			"$@"
		) 2>&1; then
			echo 0 >"$status"
		else
			echo $? >"$status"
		fi
	} | indent_lines
	case $(cat "$status") in
	0) ktap_test_pass "$name" ;;
	"$KSFT_SKIP") ktap_test_skip "$name" ;;
	*) ktap_test_fail "$name" ;;
	esac
	rm -f "$status"
}

# Every program a step runs has a time limit: one that hangs fails its own
# test (exit 143, SIGTERM), and the tests after it still run.
RUN_LIMIT=60

# Run a program under the time limit, its output as KTAP diagnostic lines;
# <program>'s exit status is returned and its output left in $WB_TMP/run.out.
run_limited() { # <program> [args...]
	local rc=0
	timeout -k 10 "$RUN_LIMIT" "$@" >"$WB_TMP/run.out" 2>&1 || rc=$?
	sed 's/^/# /' "$WB_TMP/run.out"
	return "$rc"
}

# Write <value> to the sysfs file <path>. On a fake sysfs (tests/hw/),
# WB_SYSFS_HOOK then plays the kernel's part: binds, unbinds, group types.
sysfs_write() { # <path> <value>
	echo "$2" >"$1" || return 1
	[ -z "${WB_SYSFS_HOOK:-}" ] || "$WB_SYSFS_HOOK" "$1"
}

# The sysfs directory of the first PCI device <vendor>:<device>.
pci_find() { # <vendor> <device>
	for dev in "$WB_SYSFS"/bus/pci/devices/*; do
		if [ "$(cat "$dev/vendor")" = "$1" ] && [ "$(cat "$dev/device")" = "$2" ]; then
			echo "$dev"
			return 0
		fi
	done
	return 1
}

# QEMU's edu device (1234:11e8) has no driver: hand it to dma_map_benchmark
# and print its sysfs directory; a missing device or a failed bind is a
# diagnostic line on stderr and a failure. On hardware, WB_DEVICE names the
# device (a PCI address), which the kit's runner has already freed.
bind_benchmark_device() {
	if [ -n "${WB_DEVICE:-}" ]; then
		dev=$WB_SYSFS/bus/pci/devices/$WB_DEVICE
		[ -e "$dev" ] || { echo "# no PCI device $WB_DEVICE" >&2; return 1; }
	else
		dev=$(pci_find 0x1234 0x11e8) || { echo "# no edu device (1234:11e8)" >&2; return 1; }
	fi
	sysfs_write "$dev/driver_override" dma_map_benchmark
	sysfs_write "$WB_SYSFS/bus/pci/drivers_probe" "${dev##*/}"
	if [ ! -e "$dev/driver" ]; then
		echo "# dma_map_benchmark did not bind ${dev##*/}" >&2
		return 1
	fi
	echo "$dev"
}

# Whether dma_map_benchmark is the series' tool (its -h lists depth, -D) or
# mainline's (which has no -h).
tool_is_v2() {
	dma_map_benchmark -h 2>&1 | grep -q -- '-D'
}

# The IOMMU default domain type of a device: DMA, DMA-FQ, identity or none.
domain_type() { # <sysfs device dir>
	if [ -e "$1/iommu_group/type" ]; then cat "$1/iommu_group/type"; else echo none; fi
}
