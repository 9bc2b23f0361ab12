# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The hardware kit's runner (hw-run.sh): holding the device and giving it
# back. What the run will change is saved in a state file first (its
# driver, driver_override and group type, and tracing_on, which the
# counters turn off machine-wide), the traps give it back on every
# exit, signals included, and --restore gives it back from the file after a
# kill -9, which no trap sees. Sourced by hw-run.sh.

# The state file of this run, once the device is held; the process group
# leader of the mode running now, if one is.
STATE_FILE=""
child=""
# The run's scratch directory (WB_TMP), made once the device is held.
scratch=""

# The live processes of session <sid> (the real /proc's: they are this
# run's), what timeout moved into process groups of their own among them;
# not its zombies, which only wait for their parent.
session_pids() { # <sid>
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v sid="$1" '{ pid = $1; sub(/.*\) /, ""); if ($4 == sid && $1 != "Z") print pid }'
}

# Process <pid>'s start time (/proc/<pid>/stat's 22nd field): with the pid,
# it names one process, not whichever takes the pid after it ended.
start_time() { # <pid>
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# The runner that holds <state file>, as "<pid>", while it still runs;
# nothing once it has ended (a kill -9 among the ways).
live_runner() { # <state file>
	local pid start
	read -r pid start <<-EOF
		$(sed -n "s/^saved_runner='\(.*\)'$/\1/p" "$1")
	EOF
	[ -n "$pid" ] && [ "$(start_time "$pid")" = "$start" ] &&
		[ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" != Z ] && echo "$pid"
	return 0
}

# Whether process <pid> is the leader of a mode's document (hw-run.sh
# --document, in a session of its own).
is_document() { # <pid>
	[ -n "$1" ] && [ -r "/proc/$1/cmdline" ] &&
		tr '\0' ' ' <"/proc/$1/cmdline" | grep -q -- 'hw-run.sh --document '
}

# End the processes of session <sid>: TERM, 10 s to end, then KILL, 2 s
# more. A tool stuck in the kernel ends with neither: it is named and not
# waited for, so that what can be given back still is.
end_session() { # <sid>
	local left tries=0
	left=$(session_pids "$1" | tr '\n' ' ')
	# shellcheck disable=SC2086 # a list
	[ -z "$left" ] || kill -s TERM $left 2>/dev/null
	while [ -n "$left" ] && [ "$tries" -lt 60 ]; do
		sleep 0.2
		tries=$((tries + 1))
		left=$(session_pids "$1" | tr '\n' ' ')
		# shellcheck disable=SC2086 # a list
		[ -z "$left" ] || [ "$tries" -lt 50 ] || kill -s KILL $left 2>/dev/null
	done
	if [ -n "$left" ]; then
		say "processes ${left% } of the run did not end (stuck in the kernel?); giving back the rest"
		return
	fi
	wait "$1" 2>/dev/null
}

unbind_device() { # <sysfs device dir>
	[ -e "$1/driver" ] || return 0
	sysfs_write "$1/driver/unbind" "${1##*/}"
}

# Mount debugfs (dma_map_benchmark's runs go through it) and tracefs (the
# counters) where the machine has not; print the mount points mounted.
mount_what_runs_need() {
	[ "$WB_SYSFS" = /sys ] || return 0
	if ! grep -q ' /sys/kernel/debug debugfs ' "$PROC/mounts" &&
		mount -t debugfs debugfs /sys/kernel/debug; then
		printf '%s ' /sys/kernel/debug
	fi
	if ! grep -q ' /sys/kernel/tracing tracefs ' "$PROC/mounts" &&
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null; then
		printf '%s ' /sys/kernel/tracing
	fi
}

# Save what the device at <sysfs device dir> is now in <state file>, with
# what the run changes on the machine (the mounts it makes, tracing_on once
# tracefs is there), and from here on give it back on every exit.
hold_device() { # <sysfs device dir> <state file>
	local mounted
	STATE_FILE=$2
	mounted=$(mount_what_runs_need)
	cat >"$STATE_FILE" <<STATE
saved_runner='$$ $(start_time $$)'
saved_mounts='$mounted'
saved_device='${1##*/}'
saved_driver='$(link_name "$1/driver")'
saved_override='$(cat "$1/driver_override")'
saved_type='$(cat "$1/iommu_group/type")'
saved_tracing_on='$(cat "$TRACING/tracing_on" 2>/dev/null)'
STATE
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/wb-hw-kit.XXXXXX")
	state_add "saved_scratch='$scratch'"
	WB_TMP=$scratch
	export WB_TMP
	trap 'restore || exit 1' EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	trap 'exit 129' HUP
	trap 'exit 131' QUIT
	trap 'exit 141' PIPE
}

# The NIC pktgen sends from (--nic): whether it is up (IFF_UP), since the
# workload step brings it up, and pktgen's first thread takes it.
hold_nic() { # <interface>
	local flags
	flags=$(cat "$WB_SYSFS/class/net/$1/flags")
	state_add "saved_nic='$1' saved_nic_up='$((flags & 1))'"
}

# pktgen's first thread lets go of the NIC (the workload step clears the
# thread before it adds it, too); a NIC that was down goes down again.
give_nic_back() {
	[ -n "$saved_nic" ] || return 0
	{ echo rem_device_all >"$PROC/net/pktgen/kpktgend_0"; } 2>/dev/null ||
		say "could not take $saved_nic off pktgen's kpktgend_0"
	# shellcheck disable=SC2154 # the state file's
	[ "$saved_nic_up" = 1 ] || ip link set dev "$saved_nic" down 2>/dev/null ||
		say "could not take $saved_nic down again (it was down)"
}

# <line> added to the state file while it is there: a run never makes a
# new one of a state file removed under it.
state_add() { # <line>
	[ ! -f "$STATE_FILE" ] || echo "$1" >>"$STATE_FILE"
}

# Only what this run wrote is its state: once it is gone (removed by hand)
# there is nothing to give back by, and the device may be another's now,
# so the run ends before it touches anything more.
still_held() { # <state file>
	[ ! -f "$1" ] || return 0
	say "$1 is gone: the device is left as it is (bound to dma_map_benchmark, if it was), nothing given back"
	STATE_FILE=""
	exit 1
}

# Everything this run changed, undone; safe to call twice. The state is in
# a file so that --restore can do the same after a kill -9.
restore() {
	[ -n "$STATE_FILE" ] && [ -f "$STATE_FILE" ] || return 0
	# Give back all there is to give back, whatever fails on the way: a
	# second Ctrl-C, or a closed pipe to tee, must not cut it short.
	trap '' INT TERM HUP PIPE QUIT
	set +e
	saved_mounts="" saved_device="" saved_driver="" saved_override=""
	saved_type="" saved_tracing_on="" saved_session="" saved_nic="" saved_nic_up="" saved_scratch=""
	# shellcheck source=/dev/null # saved_*: the state file's
	. "$STATE_FILE"
	if [ -z "$saved_device" ]; then
		say "$STATE_FILE names no device: not a state file of this kit; nothing given back"
		return 1
	fi
	# --restore after a kill -9: the last mode's session, if it still runs
	# (its leader still the kit's document, not a process that took its pid).
	[ -n "$child" ] || ! is_document "$saved_session" || child=$saved_session
	if [ -n "$child" ]; then
		end_session "$child"
		child=""
	fi
	counters_teardown
	# counters_setup turned tracing off for the whole machine.
	# shellcheck disable=SC2154 # the state file's
	[ -z "$saved_tracing_on" ] || echo "$saved_tracing_on" >"$TRACING/tracing_on" 2>/dev/null
	# shellcheck disable=SC2154 # the state file's
	[ -z "$saved_scratch" ] || rm -rf "$saved_scratch"
	give_nic_back
	# shellcheck disable=SC2154 # the state file's
	dev=$WB_SYSFS/bus/pci/devices/$saved_device
	# Unbinding dma_map_benchmark ends a run in progress (ENODEV).
	unbind_device "$dev"
	if [ -n "$saved_type" ] && [ "$(cat "$dev/iommu_group/type")" != "$saved_type" ]; then
		sysfs_write "$dev/iommu_group/type" "$saved_type" 2>/dev/null ||
			say "could not give group $(link_name "$dev/iommu_group") its type $saved_type back"
	fi
	# An empty write clears driver_override, which reads "(null)" then.
	# shellcheck disable=SC2154 # the state file's
	if [ "$saved_override" = "(null)" ]; then
		sysfs_write "$dev/driver_override" "" || true
	else
		sysfs_write "$dev/driver_override" "$saved_override" || true
	fi
	# The driver it had, by name: a probe (drivers_probe) binds the first
	# that matches, which need not be the one bound by hand before.
	[ -z "$saved_driver" ] ||
		sysfs_write "$WB_SYSFS/bus/pci/drivers/$saved_driver/bind" "$saved_device" 2>/dev/null
	# The state file goes only once all three read back as they were: a
	# --restore may then try again.
	if ! given_back "$dev"; then
		say "$saved_device is not as it was; what is left to give back stays in $STATE_FILE" \
			"(--restore tries again; once the device is as it should be, remove the file)"
		return 1
	fi
	# shellcheck disable=SC2154 # the state file's
	for mount_point in $saved_mounts; do
		umount "$mount_point" 2>/dev/null || say "could not unmount $mount_point (the kit mounted it)"
	done
	rm -f "$STATE_FILE"
	say "$saved_device given back (driver ${saved_driver:-none}, driver_override $saved_override, type ${saved_type:-none})"
}

# Whether the device reads back as the state file saved it; says what not.
given_back() { # <sysfs device dir>
	local ok=0
	if [ "$(link_name "$1/driver")" != "$saved_driver" ]; then
		say "driver: $(link_name "$1/driver" || true), not ${saved_driver:-none}"
		ok=1
	fi
	if [ "$(cat "$1/driver_override")" != "$saved_override" ]; then
		say "driver_override: $(cat "$1/driver_override"), not $saved_override"
		ok=1
	fi
	if [ -n "$saved_type" ] && [ "$(cat "$1/iommu_group/type")" != "$saved_type" ]; then
		say "group type: $(cat "$1/iommu_group/type"), not $saved_type"
		ok=1
	fi
	return "$ok"
}
