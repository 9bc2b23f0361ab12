#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark matrix: every granule and thread count named on the kernel
# command line, each run's raw output between WB-RUN markers for the host.
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

dev=$(bind_benchmark_device) || exit 1
domain=$(domain_type "$dev")
seconds=$(wb_arg seconds 1)
for granule in $(wb_arg granules 1 | tr , ' '); do
	for threads in $(wb_arg threads 1 | tr , ' '); do
		echo "WB-RUN granule=$granule threads=$threads seconds=$seconds domain=$domain"
		rc=0
		dma_map_benchmark -s "$seconds" -t "$threads" -g "$granule" 2>&1 || rc=$?
		echo "WB-RUN-END rc=$rc"
	done
done
