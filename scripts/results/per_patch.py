#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the benchmark of several kernels of one series side by side, each
beside the one before it: what each patch changed.

Usage: per_patch.py [--workloads] <results dir> <kernel name>...

<results dir>/<kernel name>/ holds the consoles scripts/run/bench.sh wrote for
that kernel (in the order given: the series' patches, first to last). Per
IOMMU mode, map mode, size, threads and depth, prints map and unmap mean,
p50 and p99 in ns for every kernel and each p50's ratio to the kernel
before it. With --workloads, the consoles are scripts/run/workloads.sh's:
per workload, rate and IOMMU mode, each kernel's rate, its ratio to the
same kernel with the IOMMU off and to the kernel before. Exits non-zero
when a run or workload failed or is missing.
"""

import sys

import report
import workload_table
from ratios import ratio


def stats(run, op):
    return " ".join(format("-" if run.get(f"{op}_{s}") is None else run[f"{op}_{s}"], ">6")
                    for s in report.STATS)


def bench(results, names):
    """Print the benchmark table of kernels <names>; return its failures."""
    kernels = [report.load(f"{results}/{name}") for name in names]
    keys = sorted(set().union(*kernels), key=report.sort_key)
    failed = [(name, key) for name, runs in zip(names, kernels) for key in keys
              if "failed" in runs.get(key, {"failed": "missing"})]
    print("ns per call, mean p50 p99 of each kernel; x: p50 against the kernel before")
    print(f"{'mode':6} {'map':7} {'pages':>5} {'thr':>3} {'depth':>5} op     " +
          "  ".join(f"{name:>20}" for name in names))
    for key in keys:
        for op in ("map", "unmap"):
            cells, before = [], None
            for runs in kernels:
                run = runs.get(key, {})
                p50 = run.get(f"{op}_p50")
                change = f"x{ratio(p50, before)}" if before and p50 else ""
                cells.append(f"{stats(run, op)} {change:>6}")
                before = p50
            print(f"{key[0]:6} {key[1]:7} {key[2]:>5} {key[3]:>3} {key[4]:>5} {op:6} " +
                  "  ".join(cells))
    return [f"{name} " + " ".join(f"{k}={v}" for k, v in zip(report.KEY, key))
            for name, key in failed]


def rate_cell(value, off, before):
    """A kernel's rate, its ratio to the IOMMU off and to the kernel before."""
    change = f"x{ratio(value, before)}" if before and value else ""
    return f"{'-' if value is None else value:>9} {'-' if off is None else off:>5} {change:>6}"


def workloads(results, names):
    """Print the workload table of kernels <names>; return its failures, one
    per kernel, workload and mode."""
    kernels = [workload_table.load(f"{results}/{name}", report.console_objects,
                                   report.PROBLEMS) for name in names]
    failed = {}
    print(f"{workload_table.CLOCK}; each kernel: its rate, /off against the same kernel "
          "with the IOMMU off, x against the kernel before")
    print(f"{'workload':26} {'metric':6} {'mode':6} " +
          "  ".join(f"{name:>22}" for name in names))
    print(f"{'':41}" + "  ".join(f"{'rate':>9} {'/off':>5} {'x':>6}" for _ in names))
    for name, _, metric, mode in workload_table.row_keys(*kernels):
        cells, before = [], None
        for who, runs in zip(names, kernels):
            run = runs.get((name, mode), {})
            value = run.get(metric)
            if workload_table.failure(run):
                failed[f"{who} workload={name} mode={mode}"] = workload_table.failure(run)
            cells.append(f"{'skipped':>22}" if "skipped" in run else rate_cell(
                value, workload_table.vs_direct(runs, name, metric, mode), before))
            before = value
        print(f"{name:26} {metric or '-':6} {mode:6} " + "  ".join(cells))
    return [f"{what}: {why}" for what, why in failed.items()]


def main():
    args, table = sys.argv[1:], bench
    if args[:1] == ["--workloads"]:
        args, table = args[1:], workloads
    if len(args) < 2:
        sys.exit("usage: per_patch.py [--workloads] <results dir> <kernel name>...")
    failed = table(args[0], args[1:])
    for what in failed + report.PROBLEMS:
        print(f"FAILED {what}")
    sys.exit(1 if failed or report.PROBLEMS else 0)


if __name__ == "__main__":
    main()
