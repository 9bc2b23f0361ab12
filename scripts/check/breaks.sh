#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that each deliberate break of a KUnit suite fails the case it names:
# for every break in <breaks.json>, apply it to the tree, build the kernel,
# boot it running only that suite in each IOMMU mode the break names
# (scripts/check/break.py --modes) and record PASS for each boot in which the
# named case failed; then undo the break. A break whose text is not in the
# tree exactly once fails, and the next one runs. The tree must be clean,
# and the kernel in <out> is built from the clean tree again at the end
# (not for a suite on UML).
# A suite of the workbench's test modules names the guest job that loads
# them ("job": "modules") and what its boot adds to the command line
# ("append"); the guest's tool tests are suite "tool" of job "tool", whose
# cases are guest/steps/tool.sh's tests; a suite that runs on UML names the
# directory whose .kunitconfig builds it ("kunitconfig"); "modes", of the
# file or of a break, the roles of the IOMMU modes the suite boots in
# (guest/protocol.sh: direct, lazy, strict, cm; lazy unless set), which
# break.py --modes names. "append" and "devices" (configs/boots' column)
# may also be a break's own. A file whose "root" is "workbench" breaks the
# workbench's files (the hardware kit: tests/breaks/hwkit.json): each break
# repacks <initramfs> with make instead of building the kernel, and is
# undone with git checkout there.
# Usage: breaks.sh <arch> <tree> <out> <image> <initramfs> <breaks.json> <results> <fragment>...
#   image: the kernel image's path below <out>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

arch=$1 tree=$2 out=$3 image=$4 initrd=$5 json=$6 results=$7
shift 7
field() { # <name> <default>
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], sys.argv[3]))' \
		"$json" "$1" "$2"
}
suite=$(field suite "")
job=$(field job probe)
kunitconfig=$(field kunitconfig "")
seconds=$(field seconds "$WB_KUNIT_SECONDS")
root=$(python3 "$WB_SCRIPTS/check/break.py" --root "$json")
top=$(cd "$WB_SCRIPTS/.." && pwd)
logs=$(dirname "$results")/breaks-$suite
mkdir -p "$logs"
# What a break changes, undone by git checkout: the tree, or the
# workbench's files of the hardware kit.
broken=$tree paths=.
[ "$root" != workbench ] || broken=$top paths="hw guest"
# shellcheck disable=SC2086 # a list
[ -z "$(git -C "$broken" status --porcelain --untracked-files=no -- $paths)" ] ||
	die "$broken has uncommitted changes: commit them first"

# A break in the tree is marked, so that if this run is killed before it
# undoes it, the next 'make' refuses to build from it (scripts/tree/tree.sh).
marker=$(git -C "$broken" rev-parse --absolute-git-dir)/wb-break
# shellcheck disable=SC2086 # a list
undo() { git -C "$broken" checkout -q -- $paths && rm -f "$marker"; }
trap undo EXIT
trap 'exit 130' INT TERM HUP

# Boot the kernel with the break applied in <mode>, running only the suite,
# with the break's command line ($append), QEMU options ($qemu_args) and
# clock ($smp, $icount) that run_break found.
boot_suite() { # <mode> <log>
	env WB_QEMU_ARGS="$qemu_args" "$smp" "$icount" \
		"$WB_SCRIPTS/run/boot.sh" "$arch" "$1" "$out/$image" "$initrd" "$2" "$seconds" \
		"$WB_KUNIT_APPEND kunit.filter_glob=$suite wb.job=$job $append" >/dev/null 2>&1 || true
}

# What the guest runs, rebuilt: the kernel from the tree, or for a break of
# the workbench the initramfs that carries its scripts.
rebuild() { # <fragment>...
	if [ "$root" = workbench ]; then
		make -C "$top" --no-print-directory "$(realpath --relative-to="$top" "$initrd")"
	else
		"$WB_SCRIPTS/build/kbuild.sh" "$arch" "$tree" "$out" "$@"
	fi
}

# Record whether the console <log> shows <case> of the suite failed (a
# step's test may say why after " # ").
check_case() { # <case> <log> <result name>
	if [ -f "$2" ] && tr -d '\r' <"$2" | grep -Eq "^ +not ok [0-9]+ $1( #.*)?\$"; then
		record "$results" PASS "$3"
	else
		record "$results" FAIL "$3" "it does not; console: $2"
		rc=1
	fi
}

# Run the suite with break <name> applied, in each of its modes.
run_break() { # <name> <case> <fragment>...
	local name=$1 case=$2 mode modes append devices qemu_args smp icount
	shift 2
	# A break whose modes break.py cannot name runs nowhere: a failure.
	if ! modes=$(python3 "$WB_SCRIPTS/check/break.py" --modes "$json" "$name"); then
		record "$results" FAIL "break $name of $suite names its modes" "see make check-breaks-apply"
		rc=1
		return
	fi
	# Its own command line and devices, else its file's; devices the
	# architecture lacks boot nothing: a failure too.
	append=$(python3 "$WB_SCRIPTS/check/break.py" --field "$json" "$name" append)
	devices=$(python3 "$WB_SCRIPTS/check/break.py" --field "$json" "$name" devices)
	if ! qemu_args=$(devices_qemu "$arch" "${devices:--}"); then
		record "$results" FAIL "break $name of $suite names its devices" "devices '$devices'"
		rc=1
		return
	fi
	read -r smp icount <<<"$(devices_clock "${devices:--}")"
	if [ -n "$kunitconfig" ]; then
		"$WB_SCRIPTS/check/kunit-uml.sh" "$tree" "$(dirname "$results")/kunit-uml-breaks" \
			"$kunitconfig" "$logs/$name.log" >/dev/null 2>&1 || true
		check_case "$case" "$logs/$name.log" "break $name fails $suite.$case"
		return
	fi
	# One build for every mode; a break that does not build boots nothing.
	rm -f "$logs/$name"-*.log
	local built=1
	rebuild "$@" >"$logs/$name.build" 2>&1 || built=""
	for mode in $modes; do
		if [ -z "$built" ]; then
			record "$results" FAIL "break $name fails $suite.$case in $mode mode" \
				"its build failed: $logs/$name.build"
			rc=1
			continue
		fi
		boot_suite "$mode" "$logs/$name-$mode.log"
		check_case "$case" "$logs/$name-$mode.log" "break $name fails $suite.$case in $mode mode"
	done
}

rc=0
for name in $(python3 "$WB_SCRIPTS/check/break.py" --list "$json"); do
	echo "$name of $json" >"$marker"
	if case=$(python3 "$WB_SCRIPTS/check/break.py" "$tree" "$json" "$name"); then
		run_break "$name" "$case" "$@"
	else
		record "$results" FAIL "break $name of $suite applies" "see make check-breaks-apply"
		rc=1
	fi
	undo
done
# A suite on UML built its kernel elsewhere: <out> holds no broken build.
[ -n "$kunitconfig" ] || rebuild "$@" >/dev/null
exit $rc
