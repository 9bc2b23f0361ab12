#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
# The bench step: the benchmark matrix named on the kernel command line
# (wb.maps=, wb.granules=, wb.threads=, wb.depths=, wb.seconds=), one test
# per run. First a diagnostic line with the matrix as a JSON object
# ("matrix"), then per run one JSON object ("run") before its result line:
# the run's parameters, the tool's result ("timed") and, with kprobes in
# the kernel, the counters of the same run repeated with them on
# ("counted"; they cost time, so never during a timed run), for one second
# at most: counts are read per map, and a second of one-page maps in
# caching mode already writes about 7 of the invalidation trace's 16 MiB.
# A run fails when the tool fails or the counters lost trace events.
set -eu
# shellcheck source=guest/lib.sh
. "${WB_DIR:-/wb}/lib.sh"
# shellcheck source=guest/counters.sh
. "$WB_DIR/counters.sh"

maps=$(wb_arg maps single | tr , ' ')
granules=$(wb_arg granules 1 | tr , ' ')
threads=$(wb_arg threads 1 | tr , ' ')
depths=$(wb_arg depths 1 | tr , ' ')
seconds=$(wb_arg seconds 1)
# The device's DMA mask, in bits: the tool's own default (32) unless
# wb.dma_bits= says (the hardware kit: 64, as a NIC or NVMe has; with 32 an
# identity domain bounces pages above 4 GiB through swiotlb).
dma_bits=$(wb_arg dma_bits)
counted_seconds=1
RUN_LIMIT=$((seconds + 60))

json_list() { # <word>... as a JSON array, quoted when <quote> is '"'
	quote=$1
	shift
	printf '['
	sep=""
	for word; do printf '%s%s%s%s' "$sep" "$quote" "$word" "$quote"; sep=,; done
	printf ']'
}

# shellcheck disable=SC2086 # lists
count() { echo $(($(echo $maps | wc -w) * $(echo $granules | wc -w) *
	$(echo $threads | wc -w) * $(echo $depths | wc -w))); }

dev=$(bind_benchmark_device) || exit 1
domain=$(domain_type "$dev")
# Mainline's tool knows neither depth nor JSON: single, depth 1 only; the
# runs it cannot do are skipped by name, not left out.
if tool_is_v2; then v2=1 tool=series; else v2="" tool=7.3; fi
counters=$(counters_setup)

# shellcheck disable=SC2086 # lists
matrix_object "$(printf '{"maps":%s,"granules":%s,"threads":%s,"depths":%s,"seconds":%s}' \
	"$(json_list '"' $maps)" "$(json_list '' $granules)" "$(json_list '' $threads)" \
	"$(json_list '' $depths)" "$seconds")" "\"domain\":\"$domain\",\"tool\":\"$tool\""
ktap_set_plan "$(count)"

# The tool's result as JSON: the series' tool prints it (-j); mainline's
# prints text, of which its mean latencies are taken; null if there is none.
tool_json() { # <tool output file>
	if [ -n "$v2" ]; then
		grep '^{' "$1" | tail -n 1 | grep . || echo null
	else
		awk -F'[:( ]+' '/average map latency/ { map = $5 * 1000; seen++ }
			/average unmap latency/ { unmap = $5 * 1000; seen++ }
			END {
				if (seen != 2) { print "null"; exit }
				printf "{\"map\":{\"mean_ns\":%d},\"unmap\":{\"mean_ns\":%d}}\n", map, unmap
			}' "$1"
	fi
}

# The "run" object of <map> <granule> <threads> <depth>, with <members>.
run_json() { # <map> <granule> <threads> <depth> <members>
	run_object "$(printf '{"map":"%s","granule":%s,"threads":%s,"depth":%s,"seconds":%s}' \
		"$1" "$2" "$3" "$4" "$seconds")" "\"domain\":\"$domain\",$5"
}

# One timed run and, when counters are there, one counted run; prints the
# "run" JSON object and returns whether both succeeded and nothing was lost.
bench_run() { # <map> <granule> <threads> <depth>
	local args="" rc=0 timed_rc=0 timed=null counted=null ok=0
	[ -z "$v2" ] || args="-j -m $1 -D $4"
	[ -z "$dma_bits" ] || args="$args -b $dma_bits"
	# shellcheck disable=SC2086 # $args is a list of options
	timeout -k 10 "$RUN_LIMIT" dma_map_benchmark -s "$seconds" -t "$3" -g "$2" $args \
		>"$WB_TMP/run.out" 2>&1 || timed_rc=$?
	if [ "$timed_rc" = 0 ]; then
		timed=$(tool_json "$WB_TMP/run.out")
		[ "$timed" != null ] || { sed 's/^/# /' "$WB_TMP/run.out"; ok=1; }
	else
		sed 's/^/# /' "$WB_TMP/run.out"
		ok=1
	fi
	if [ -n "$v2" ] && [ -n "$counters" ] && [ "$timed_rc" = 0 ]; then
		# shellcheck disable=SC2086 # lists
		counters_on $counters
		invalidations_on
		# shellcheck disable=SC2086
		timeout -k 10 "$RUN_LIMIT" dma_map_benchmark -s "$counted_seconds" -t "$3" -g "$2" $args \
			>"$WB_TMP/count.out" 2>&1 || rc=$?
		# shellcheck disable=SC2086
		counted="{$(counters_off $counters)$(invalidations_off)\"rc\":$rc,\"result\":$(tool_json "$WB_TMP/count.out")}"
		[ "$rc" = 0 ] || { sed 's/^/# /' "$WB_TMP/count.out"; ok=1; }
		! counted_lost "$counted" || ok=1
	fi
	run_json "$@" "\"rc\":$timed_rc,\"timed\":${timed:-null},\"counted\":$counted"
	return "$ok"
}

for map in $maps; do
for granule in $granules; do
for thread in $threads; do
for depth in $depths; do
	name="$map granule=$granule threads=$thread depth=$depth"
	if [ -z "$v2" ] && { [ "$map" != single ] || [ "$depth" != 1 ]; }; then
		run_json "$map" "$granule" "$thread" "$depth" \
			"\"skipped\":\"Linux 7.3's tool has neither map modes nor depth\""
		ktap_test_skip "$name"
	elif bench_run "$map" "$granule" "$thread" "$depth"; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name"
	fi
done
done
done
done
ktap_finished
