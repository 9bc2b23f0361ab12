# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash disable=SC2034 # data, read by whoever sources it
# The result protocol between the guests and the host, in one place: the
# IOMMU modes, the guest job's markers, the kinds of the JSON objects the
# steps print and the counters' names. The guest's scripts (guest/lib.sh)
# and the host's (scripts/lib.sh) source this file; scripts/results/protocol.py
# reads it for the Python without a shell, so it holds plain assignments
# only: NAME=word or NAME="words", where $NAME or ${NAME} names an earlier
# one. Renaming a value here renames it everywhere: in every script that
# writes or reads it, and in the saved consoles and fixtures of tests/,
# which tests/results/fixtures.py rewrites from the values they were
# recorded with (tests/recorded-protocol.sh); test_protocol.py renames
# every value here in a copy of the workbench and runs the unit tests.

# The IOMMU modes, in the order the reports show them. A mode's name is its
# consoles' (<mode>.log, <mode>-smp.log) and what reports and results say;
# the data that picks modes (archs/<arch>.sh's iommu_<role> and
# append_<role>, configs/boots, tests/breaks/) names them by role, the
# lower-case suffix of WB_MODE_<ROLE> (direct, lazy, strict, cm), so that a
# name changed here alone is changed everywhere. The report compares each
# mode with the direct one (no translation); in caching mode the counters
# leave out the invalidations of new mappings; the workloads' goals compare
# lazy and strict with direct, and caching mode with lazy.
WB_MODE_DIRECT=off
WB_MODE_LAZY=lazy
WB_MODE_STRICT=strict
WB_MODE_CM=cm
WB_MODES="$WB_MODE_DIRECT $WB_MODE_LAZY $WB_MODE_STRICT $WB_MODE_CM"

# The guest job's KTAP document (guest/init): its first line after the
# version line, then its last, followed by the job's exit status.
WB_JOB_MARKER="# wb: job="
WB_END_MARKER="# wb: end rc="
# The trace step's diagnostic line (ktap_print_msg adds "# "): the runs a
# debugger steps through are about to start (scripts/run/insns.sh).
WB_TRACE_START="wb: trace runs start"

# The JSON objects of the steps, one per "# {...}" diagnostic line, are told
# apart by the member they carry: the bench step's matrix it was asked for
# and each run (guest/steps/bench.sh), the workload step's plan and each
# workload (guest/steps/workload.sh).
WB_KIND_MATRIX=matrix
WB_KIND_RUN=run
WB_KIND_PLAN=workloads
WB_KIND_WORKLOAD=workload

# The bench step's counters (guest/counters.sh), each a JSON member of a
# run's "counted" object: the calls of the functions it places kprobes on
# (named after them today; which function each counts is counters.sh's
# counted_function), the invalidation wait, the invalidation of
# new mappings (which waits too in caching mode) and the IOVA allocator's
# rbtree slow path; from the qi_submit trace event, the pages invalidated
# page-selectively, the domain-wide or global invalidations, and the
# events the trace buffer lost.
WB_COUNT_WAIT=qi_submit_sync
WB_COUNT_MAP_FLUSH=cache_tag_flush_range_np
WB_COUNT_ALLOC=alloc_iova
WB_COUNTED="$WB_COUNT_WAIT $WB_COUNT_MAP_FLUSH $WB_COUNT_ALLOC"
WB_COUNT_PAGES=psi_pages
WB_COUNT_WHOLE=whole
WB_COUNT_LOST=lost

# The line wb_dma_unmap's case unmapped_iova_faults prints with
# kunit_info() (modules/wb_dma_test/wb_dma_test.c), as KUnit prints it
# after "# ", in printf's terms: %s is the domain's mode as the module
# names it, each %u a count. The module's text must start with this
# (tests/results/ checks it), or its result disappears from make check.
WB_FAULTS_LINE="unmapped_iova_faults: %s: stale-IOVA faults seen %u of %u expected, %u bytes touched"
