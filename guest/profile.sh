#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The profile job: ftrace's function profiler over a one-page
# dma_map_benchmark run, lazy and strict alike (the IOMMU mode is the
# boot's), and the same run without it. Each run is printed between
# WB-PROFILE-BEGIN and WB-PROFILE-END: the benchmark's JSON, then the
# profiler's hits and time of each traced step (scripts/profile.py reads it).
set -eu
# shellcheck source=guest/lib.sh
. /wb/lib.sh

TRACING=/sys/kernel/tracing
seconds=$(wb_arg seconds 1)

# The steps of a map and an unmap: functions that do not call one another,
# so each one's time is its step's, and the rest of the pair is the DMA
# layer around them. iommu_get_dma_domain() costs a few instructions: its
# time is what the profiler adds to each traced call's own.
STEPS_COMMON="iommu_dma_alloc_iova iommu_map_nosync intel_iommu_iotlb_sync_map
iommu_iova_to_phys iommu_unmap_fast iommu_get_dma_domain"
STEPS_DMA_FQ="fq_ring_free_locked"
STEPS_DMA="intel_iommu_tlb_sync free_iova_fast iommu_put_pages_list"

profile_run() { # <domain type>
	case $1 in
	DMA-FQ) steps="$STEPS_COMMON $STEPS_DMA_FQ" ;;
	*) steps="$STEPS_COMMON $STEPS_DMA" ;;
	esac
	for f in $steps; do
		echo "$f" >>"$TRACING/set_ftrace_filter" ||
			echo "WB-ERROR cannot trace $f"
	done
	# Disabling and enabling resets the counters.
	echo 0 >"$TRACING/function_profile_enabled"
	echo 1 >"$TRACING/function_profile_enabled"
	dma_map_benchmark -j -s "$seconds" -t 1 -g 1 >/tmp/profile.json
	echo 0 >"$TRACING/function_profile_enabled"
	echo "WB-PROFILE-BEGIN profiled"
	cat /tmp/profile.json
	cat "$TRACING"/trace_stat/function*
	echo "WB-PROFILE-END"
}

dev=$(bind_benchmark_device) || exit 1
domain=$(domain_type "$dev")
echo "WB-INFO domain=$domain device=${dev##*/}"
mount -t tracefs tracefs "$TRACING" 2>/dev/null || true
[ -w "$TRACING/function_profile_enabled" ] ||
	{ echo "WB-ERROR no function profiler (CONFIG_FUNCTION_PROFILER)"; exit 1; }
# The benchmark's own numbers without the profiler: its cost is their difference.
echo "WB-PROFILE-BEGIN off"
dma_map_benchmark -j -s "$seconds" -t 1 -g 1
echo "WB-PROFILE-END"
profile_run "$domain"
