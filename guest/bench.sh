#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark matrix named on the kernel command line. Each timed run's
# output goes between WB-RUN markers; with kprobes in the kernel, the same
# run is repeated with the counters on (they cost time, so never during a
# timed run) and its counts go between WB-COUNT markers.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

dev=$(bind_benchmark_device) || exit 1
domain=$(domain_type "$dev")
seconds=$(wb_arg seconds 1)
# Mainline's tool knows neither depth nor JSON: single, depth 1 only; the
# runs it cannot do are named as skipped (WB-RUN-SKIP), not left out.
if tool_is_v2; then v2=1; else v2=""; fi
counters=$(counters_setup)

for map in $(wb_arg maps single | tr , ' '); do
for granule in $(wb_arg granules 1 | tr , ' '); do
for threads in $(wb_arg threads 1 | tr , ' '); do
for depth in $(wb_arg depths 1 | tr , ' '); do
	if [ -n "$v2" ]; then
		args="-j -m $map -D $depth"
	elif [ "$map" = single ] && [ "$depth" = 1 ]; then
		args=""
	else
		echo "WB-RUN-SKIP map=$map granule=$granule threads=$threads depth=$depth"
		continue
	fi
	echo "WB-RUN map=$map granule=$granule threads=$threads depth=$depth seconds=$seconds domain=$domain"
	rc=0
	# shellcheck disable=SC2086 # $args is a list of options
	dma_map_benchmark -s "$seconds" -t "$threads" -g "$granule" $args 2>&1 || rc=$?
	echo "WB-RUN-END rc=$rc"
	if [ -z "$v2" ] || [ -z "$counters" ] || [ "$rc" != 0 ]; then
		continue
	fi

	# shellcheck disable=SC2086 # lists
	counters_on $counters
	invalidations_on
	rc=0
	# shellcheck disable=SC2086
	out=$(dma_map_benchmark -s "$seconds" -t "$threads" -g "$granule" $args 2>&1) || rc=$?
	# shellcheck disable=SC2086
	echo "WB-COUNT $(counters_off $counters)$(invalidations_off)"
	echo "$out"
	echo "WB-COUNT-END rc=$rc"
done
done
done
done
