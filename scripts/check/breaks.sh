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
# break.py --modes names.
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
append=$(field append "")
kunitconfig=$(field kunitconfig "")
logs=$(dirname "$results")/breaks-$suite
mkdir -p "$logs"
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has uncommitted changes: commit them first"

# A break in the tree is marked, so that if this run is killed before it
# undoes it, the next 'make' refuses to build from it (scripts/tree/tree.sh).
marker=$(git -C "$tree" rev-parse --absolute-git-dir)/wb-break
undo() { git -C "$tree" checkout -q -- . && rm -f "$marker"; }
trap undo EXIT
trap 'exit 130' INT TERM HUP

# Boot the kernel with the break applied in <mode>, running only the suite.
boot_suite() { # <mode> <log>
	"$WB_SCRIPTS/run/boot.sh" "$arch" "$1" "$out/$image" "$initrd" "$2" "$WB_KUNIT_SECONDS" \
		"$WB_KUNIT_APPEND kunit.filter_glob=$suite wb.job=$job $append" >/dev/null 2>&1 || true
}

# Record whether the console <log> shows <case> of the suite failed.
check_case() { # <case> <log> <result name>
	if [ -f "$2" ] && tr -d '\r' <"$2" | grep -Eq "^ +not ok [0-9]+ $1\$"; then
		record "$results" PASS "$3"
	else
		record "$results" FAIL "$3" "it does not; console: $2"
		rc=1
	fi
}

# Run the suite with break <name> applied, in each of its modes.
run_break() { # <name> <case> <fragment>...
	local name=$1 case=$2 mode modes
	shift 2
	# A break whose modes break.py cannot name runs nowhere: a failure.
	if ! modes=$(python3 "$WB_SCRIPTS/check/break.py" --modes "$json" "$name"); then
		record "$results" FAIL "break $name of $suite names its modes" "see make check-breaks-apply"
		rc=1
		return
	fi
	if [ -n "$kunitconfig" ]; then
		"$WB_SCRIPTS/check/kunit-uml.sh" "$tree" "$(dirname "$results")/kunit-uml-breaks" \
			"$kunitconfig" "$logs/$name.log" >/dev/null 2>&1 || true
		check_case "$case" "$logs/$name.log" "break $name fails $suite.$case"
		return
	fi
	# One build for every mode; a break that does not build boots nothing.
	rm -f "$logs/$name"-*.log
	local built=1
	"$WB_SCRIPTS/build/kbuild.sh" "$arch" "$tree" "$out" "$@" >"$logs/$name.build" 2>&1 || built=""
	for mode in $modes; do
		if [ -z "$built" ]; then
			record "$results" FAIL "break $name fails $suite.$case in $mode mode" \
				"the kernel did not build: $logs/$name.build"
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
[ -n "$kunitconfig" ] || "$WB_SCRIPTS/build/kbuild.sh" "$arch" "$tree" "$out" "$@" >/dev/null
exit $rc
