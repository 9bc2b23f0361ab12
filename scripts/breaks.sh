#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that each deliberate break of a KUnit suite fails the case it names:
# for every break in <breaks.json>, apply it to the tree, build the kernel,
# boot it running only that suite and record PASS if the named case failed;
# then undo the break. The tree must be clean, and the kernel in <out> is
# built from the clean tree again at the end (not for a suite on UML).
# A suite of the workbench's test modules names the guest job that loads
# them ("job": "modules") and what its boot adds to the command line
# ("append"); the guest's tool tests are suite "tool" of job "tool", whose
# cases are guest/steps/tool.sh's tests; a suite that runs on UML names the
# directory whose .kunitconfig builds it ("kunitconfig"); "mode" names the
# IOMMU mode the suite boots in (archs/<arch>.sh; lazy unless set).
# Usage: breaks.sh <arch> <tree> <out> <image> <initramfs> <breaks.json> <results> <fragment>...
#   image: the kernel image's path below <out>
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=$1 tree=$2 out=$3 image=$4 initrd=$5 json=$6 results=$7
shift 7
here=$(dirname "$0")
field() { # <name> <default>
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], sys.argv[3]))' \
		"$json" "$1" "$2"
}
suite=$(field suite "")
job=$(field job probe)
append=$(field append "")
mode=$(field mode "")
kunitconfig=$(field kunitconfig "")
logs=$(dirname "$results")/breaks-$suite${mode:+-$mode}
mkdir -p "$logs"
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has uncommitted changes: commit them first"

# A break in the tree is marked, so that if this run is killed before it
# undoes it, the next 'make' refuses to build from it (scripts/tree.sh).
marker=$(git -C "$tree" rev-parse --absolute-git-dir)/wb-break
undo() { git -C "$tree" checkout -q -- . && rm -f "$marker"; }
trap undo EXIT
trap 'exit 130' INT TERM HUP

# Build the kernel with the break applied and run the suite, console to <log>.
run_suite() { # <log> <fragment>...
	log=$1
	shift
	if [ -n "$kunitconfig" ]; then
		"$here/kunit-uml.sh" "$tree" "$(dirname "$results")/kunit-uml-breaks" \
			"$kunitconfig" "$log" >/dev/null 2>&1 || true
		return
	fi
	"$here/kbuild.sh" "$arch" "$tree" "$out" "$@" >"$log.build" 2>&1 || return 1
	"$here/boot.sh" "$arch" "${mode:-lazy}" "$out/$image" "$initrd" "$log" 300 \
		"kunit.enable=1 kunit.filter_glob=$suite wb.job=$job $append" >/dev/null 2>&1 || true
}

# Whether the kernel with the break applied fails <case> of the suite.
fails_case() { # <case> <log> <fragment>...
	want=$1 log=$2
	shift 2
	run_suite "$log" "$@" || return 1
	tr -d '\r' <"$log" | grep -Eq "^ +not ok [0-9]+ $want\$"
}

rc=0
for name in $(python3 "$here/break.py" --list "$json"); do
	echo "$name of $json" >"$marker"
	case=$(python3 "$here/break.py" "$tree" "$json" "$name")
	if fails_case "$case" "$logs/$name.log" "$@"; then
		record "$results" PASS "break $name fails $suite.$case"
	else
		record "$results" FAIL "break $name fails $suite.$case" "it does not; console: $logs/$name.log"
		rc=1
	fi
	undo
done
# A suite on UML built its kernel elsewhere: <out> holds no broken build.
[ -n "$kunitconfig" ] || "$here/kbuild.sh" "$arch" "$tree" "$out" "$@" >/dev/null
exit $rc
