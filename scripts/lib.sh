# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the workbench scripts; sourced, never run.

# The workbench's scripts, grouped by flow: tree/ (the Linux 7.3 tree and
# the series on it), build/ (kernels, tools, initramfs), run/ (boots,
# benchmark, workloads), results/ (consoles into tables), check/ (make
# check's tests); one script calls another as "$WB_SCRIPTS/<group>/<name>".
WB_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The result protocol the guests speak: modes, markers, JSON kinds, counters.
# shellcheck source=guest/protocol.sh
. "$WB_SCRIPTS/../guest/protocol.sh"

# What a boot that runs KUnit suites adds to its command line: the kernels
# run none unless told (allnoconfig leaves KUNIT_DEFAULT_ENABLED off, and
# the benchmark's boots must not pay for them); and such a boot's time limit.
# shellcheck disable=SC2034 # read by the scripts that source this file
WB_KUNIT_APPEND="kunit.enable=1" WB_KUNIT_SECONDS=300

# The modes are WB_MODES's; a WB_MODE_<ROLE> from elsewhere (the
# environment) names none.
is_mode() { # <name>
	[[ " $WB_MODES " == *" $1 "* ]]
}

# The role of IOMMU mode <name> (guest/protocol.sh: direct, lazy, strict or
# cm), by which the data names modes; fails for a name the protocol lacks.
mode_role() { # <name>
	local var role
	is_mode "$1" || return 1
	for var in "${!WB_MODE_@}"; do
		[ "${!var}" = "$1" ] || continue
		role=${var#WB_MODE_}
		echo "${role,,}"
		return 0
	done
	return 1
}

# The name of the IOMMU mode of <role>; fails for an unknown role.
mode_name() { # <role>
	[[ $1 =~ ^[a-z]+$ ]] || return 1
	local var=WB_MODE_${1^^}
	[ -n "${!var:-}" ] && is_mode "${!var}" || return 1
	echo "${!var}"
}

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Print a file's last lines under a heading, for a guest or a build that failed.
show_tail() { # <file> <lines>
	say "---- last $2 lines of $1 ----" >&2
	tail -n "$2" "$1" >&2 || true
	say "---- end of $1 ----" >&2
}

# Replace <file> with standard input only when the content differs, so that
# make sees a new timestamp only when something really changed.
write_if_changed() { # <file>
	tmp=$(mktemp "$1.XXXXXX")
	cat >"$tmp"
	if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv "$tmp" "$1"; fi
}

# "VERSION.PATCHLEVEL.SUBLEVEL" of a kernel's top-level Makefile (- for stdin).
kernel_version() { # <Makefile>
	awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 } /^SUBLEVEL =/ { s = $3 }
	     END { print v "." p "." s }' "$1"
}

# Patch file names listed in a series file, in order, without comments.
series_patches() { # <series file>
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"
}

# How many patches stand above the baseline marker (0 when there is none):
# those are the benchmark patches both kernels carry.
series_baseline_count() { # <series file>
	awk '/^#[[:space:]]*baseline-end/ { print n + 0; found = 1; exit }
	     { sub(/#.*/, ""); if ($0 ~ /[^[:space:]]/) n++ }
	     END { if (!found) print 0 }' "$1"
}

# The parts of the series (patches/parts), one per line: name, number of
# patches, kind (PATCH or RFC), extra mailing lists.
parts() { # <patch dir>
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1/parts"
}

# A short hash of the series file and the patches it names.
series_hash() { # <patch dir>
	(cd "$1" && series_patches series | xargs cat series parts ./*/0000-cover-letter.patch) |
		sha256sum | cut -c1-16
}

# Read an architecture's facts (archs/<arch>.sh: image, cross, qemu, cpu,
# cpu_kvm, console, fragments, busybox, modules, compat, compat_cc, alone,
# and iommu_<role> and append_<role> for each IOMMU mode's role).
arch_facts() { # <arch>
	af_file="$WB_SCRIPTS/../archs/$1.sh"
	[ -f "$af_file" ] || die "unknown architecture $1 (no archs/$1.sh)"
	# shellcheck source=archs/x86_64.sh
	. "$af_file"
}

# An architecture's kernel config fragments (archs/<arch>.sh), as paths
# from the current directory.
arch_fragments() { # <arch>
	(
		arch_facts "$1"
		for f in $fragments; do echo "$WB_SCRIPTS/../$f"; done
	)
}

# The cross-compiler prefix for an architecture.
cross_prefix() { # <arch>
	(arch_facts "$1" && echo "$cross")
}

# make in a kernel tree for <arch>, out of tree in <out>, through ccache, with
# fixed build stamps so that an unchanged tree rebuilds nothing.
kernel_make() { # <arch> <tree> <out> [make args...]
	km_cross=$(cross_prefix "$1")
	make -C "$2" O="$3" ARCH="$1" CROSS_COMPILE="$km_cross" \
		CC="ccache ${km_cross}gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='2025-01-01' KBUILD_BUILD_USER=wb \
		KBUILD_BUILD_HOST=wb "${@:4}"
}

# The QEMU options of a boot's devices (configs/boots' column, a break
# file's "devices"), comma-separated, on one line: none (-), the
# architecture's NVMe workload device, its namespace on QEMU's null block
# driver (reads at queue depth 1 only: see archs/x86_64.sh); nopt, VT-d
# without pass-through, where the kernel will not give a group the identity
# type (guest/steps/hwkit.sh). icount is no device: see devices_clock.
# Fails, saying why, for a device the architecture lacks or an unknown one.
devices_qemu() { # <arch> <devices>
	local device facts opts=""
	for device in $(echo "$2" | tr , ' '); do
		case $device in
		- | icount) ;;
		nvme)
			# arch_facts in a subshell: its names (image, ...) are the caller's too
			facts=$(arch_facts "$1" && echo "${nvme_qemu:-}")
			[ -n "$facts" ] || die "$1 has no NVMe workload device"
			opts="$opts $facts -drive if=none,id=nvm,driver=null-co" ;;
		nopt)
			facts=$(arch_facts "$1" && echo "${iommu_lazy:-}")
			case $facts in *intel-iommu*) ;; *) die "$1 has no VT-d to boot without pass-through" ;; esac
			opts="$opts -global intel-iommu.pt=off" ;;
		*) die "unknown devices '$device'" ;;
		esac
	done
	echo "${opts# }"
}

# Devices that say icount boot one vCPU on the -icount clock, as make's
# one-thread runs do (their numbers then the same boot after boot); others
# two vCPUs on host time. Prints boot.sh's variables as assignments.
devices_clock() { # <devices>
	case ,$1, in
	*,icount,*) echo "WB_SMP=1 WB_ICOUNT=1" ;;
	*) echo "WB_SMP=2 WB_ICOUNT=" ;;
	esac
}

# The guest job's end line of a console, "<WB_END_MARKER><status>"
# (guest/init), without the console's carriage returns; empty when the
# guest never got there.
guest_end() { # <console log>
	tr -d '\r' <"$1" | awk -v m="$WB_END_MARKER" 'index($0, m) == 1 { end = $0 } END { print end }'
}

# Whether the guest job of a console ended with status 0.
guest_passed() { # <console log>
	[ "$(guest_end "$1")" = "${WB_END_MARKER}0" ]
}

# Whether the trace step of a console has said that its runs start
# (guest/steps/trace.sh; scripts/run/insns.sh waits for it).
trace_started() { # <console log>
	grep -qF "# $WB_TRACE_START" "$1" 2>/dev/null
}

# One result of 'make check': its name stays the same from run to run; what
# varies (a time, a count, where to look) is the detail, after " # ". The
# results' directory is made here, so that any check-<name> runs alone.
record() { # <results> PASS|FAIL|SKIP <name> [<detail>]
	case $3 in *"#"*) die "a result's name may not hold '#' (KTAP cuts it there): $3" ;; esac
	mkdir -p "$(dirname "$1")"
	echo "$2 $3${4:+ # $4}" >>"$1"
	say "$2: $3${4:+ ($4)}"
}

# The archive URI the machine's apt takes <suite> from, empty if none.
archive_of() { # <suite>
	# shellcheck disable=SC2016 # $(...) is apt's format, not the shell's
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
		awk -v suite="$1" '$2 == suite { print $1; exit }'
}
