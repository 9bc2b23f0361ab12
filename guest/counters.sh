# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# The bench step's counters; sourced by busybox sh after /wb/lib.sh, whose
# guest/protocol.sh names them.

# Kprobes on the functions whose calls the benchmark counts, each probe
# named after its counter (guest/protocol.sh's WB_COUNTED). WB_TRACING
# stands for tracefs in tests.
COUNTED=$WB_COUNTED
TRACING=${WB_TRACING:-${WB_SYSFS:-/sys}/kernel/tracing}

# The function whose calls <counter> counts: intel-iommu's synchronous
# invalidation wait, its invalidation of new mappings (which waits too, in
# caching mode only) and the IOVA allocator's rbtree slow path. Kernel
# facts, kept apart from the counters' names: a name changed in the
# protocol still counts the same function.
counted_function() { # <counter>
	case $1 in
	"$WB_COUNT_WAIT") echo qi_submit_sync ;;
	"$WB_COUNT_MAP_FLUSH") echo cache_tag_flush_range_np ;;
	"$WB_COUNT_ALLOC") echo alloc_iova ;;
	esac
}

# Place the probes; print the counters whose probe was placed (none without
# kprobe events; a function this kernel lacks, VT-d's on arm64, has none).
counters_setup() {
	# A booted machine has tracefs mounted already: no second mount there.
	[ -n "${WB_TRACING:-}" ] || [ -e "$TRACING/kprobe_events" ] ||
		mount -t tracefs tracefs "$TRACING" 2>/dev/null || true
	[ -w "$TRACING/kprobe_events" ] || return 0
	# Count hits only: nothing needs to reach the ring buffer.
	echo 0 >"$TRACING/tracing_on"
	# A probe an earlier step placed (the kit runs a step per mode) is
	# there already: placing it again fails with EEXIST.
	for counter in $COUNTED; do
		if [ -d "$TRACING/events/wb/$counter" ] ||
			echo "p:wb/$counter $(counted_function "$counter")" >>"$TRACING/kprobe_events" \
				2>/dev/null; then
			printf '%s ' "$counter"
		fi
	done
}

counters_hits() { # <counter>
	awk -v e="$1" '$1 == e { print $2; found = 1 }
		END { if (!found) print 0 }' "$TRACING/kprobe_profile"
}

counters_on() { # <counter>...
	: >"$WB_TMP/wb-counters"
	for fn in "$@"; do
		echo "$fn $(counters_hits "$fn")" >>"$WB_TMP/wb-counters"
		echo 1 >"$TRACING/events/wb/$fn/enable"
	done
}

# Disable the probes; print '"<counter>":<calls since counters_on>,'... (JSON members).
counters_off() { # <counter>...
	for fn in "$@"; do
		echo 0 >"$TRACING/events/wb/$fn/enable"
		start=$(awk -v f="$fn" '$1 == f { print $2 }' "$WB_TMP/wb-counters")
		printf '"%s":%s,' "$fn" $(($(counters_hits "$fn") - start))
	done
}

# intel-iommu's qi_submit trace event, recorded in a trace instance of its
# own (the counters' kprobes must not fill its buffer): every IOTLB
# invalidation descriptor (type bit 1: iotlb_inv, dev_tlb_inv, p_iotlb_inv;
# not the waits).
QI_TRACE=$TRACING/instances/wb-qi
QI_EVENT=$QI_TRACE/events/intel_iommu/qi_submit

invalidations_on() {
	[ -d "$TRACING/events/intel_iommu/qi_submit" ] || return 0
	mkdir -p "$QI_TRACE"
	# 16 MiB on each CPU (buffer_size_kb is per CPU, and a run's events
	# land on the CPU of whichever thread unmaps): a counted strict second
	# of one thread is about 7 MiB here. The instance goes at teardown.
	echo 16384 >"$QI_TRACE/buffer_size_kb"
	: >"$QI_TRACE/trace"
	echo 'qw0 & 2' >"$QI_EVENT/filter"
	echo 1 >"$QI_EVENT/enable"
}

# Stop recording; print the JSON members $WB_COUNT_PAGES (pages invalidated
# page-selectively), $WB_COUNT_WHOLE (domain-wide or global invalidations)
# and $WB_COUNT_LOST (events the buffer dropped: the counts are then short) from the
# IOTLB descriptors: granularity in qw0 bits 5:4 (1 global, 2 domain, 3
# page-selective), the address mask (log2 of the pages) in qw1 bits 5:0.
invalidations_off() {
	[ -w "$QI_EVENT/enable" ] || return 0
	echo 0 >"$QI_EVENT/enable"
	awk -v k_pages="$WB_COUNT_PAGES" -v k_whole="$WB_COUNT_WHOLE" -v k_lost="$WB_COUNT_LOST" \
		'function low_byte(hex) {
			hex = substr(hex, 3)
			while (length(hex) < 2) hex = "0" hex
			return (index(HEX, substr(hex, length(hex) - 1, 1)) - 1) * 16 +
				index(HEX, substr(hex, length(hex), 1)) - 1
		}
		BEGIN { HEX = "0123456789abcdef" }
		/entries-in-buffer\/entries-written/ {
			split($3, n, "/"); lost = n[2] - n[1]
		}
		/qi_submit: iotlb_inv/ {
			for (i = 1; i <= NF; i++) if ($i == "iotlb_inv") break
			gran = int(low_byte($(i + 2)) / 16) % 4
			if (gran != 3) { whole++; next }
			# busybox awk has no pow(): 2^mask by doubling
			for (block = 1, m = low_byte($(i + 3)) % 64; m > 0; m--) block *= 2
			pages += block
		}
		END {
			printf "\"%s\":%d,\"%s\":%d,\"%s\":%d,", k_pages, pages, k_whole, whole,
				k_lost, lost
		}' "$QI_TRACE/trace"
	: >"$QI_TRACE/trace"
}

# Remove the probes and the trace instance: a guest powers off with them,
# a machine the kit ran on must be left as it was (hw/hw-run.sh).
counters_teardown() {
	[ -w "$TRACING/kprobe_events" ] || return 0
	for fn in $COUNTED; do
		{ echo 0 >"$TRACING/events/wb/$fn/enable"; } 2>/dev/null || true
		{ echo "-:wb/$fn" >>"$TRACING/kprobe_events"; } 2>/dev/null || true
	done
	[ ! -d "$QI_TRACE" ] || rmdir "$QI_TRACE" 2>/dev/null || true
}

# Whether the members of a counted run (counters_off, invalidations_off)
# say the trace buffer lost events: its counts are short, the run failed.
counted_lost() { # <members>
	case $1 in *"\"$WB_COUNT_LOST\":"[1-9]*) return 0 ;; esac
	return 1
}
