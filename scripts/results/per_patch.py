#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the benchmark of several kernels of one series side by side, each
beside the one before it: what each patch changed.

Usage: per_patch.py <results dir> <kernel name>...

<results dir>/<kernel name>/ holds the consoles scripts/run/bench.sh wrote for
that kernel (in the order given: the series' patches, first to last). Per
IOMMU mode, map mode, size, threads and depth, prints map and unmap mean,
p50 and p99 in ns for every kernel and each p50's ratio to the kernel
before it. Exits non-zero when a run failed or is missing.
"""

import sys

import report
from ratios import ratio


def stats(run, op):
    return " ".join(format("-" if run.get(f"{op}_{s}") is None else run[f"{op}_{s}"], ">6")
                    for s in report.STATS)


def main():
    results, names = sys.argv[1], sys.argv[2:]
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
    for name, key in failed:
        print(f"FAILED {name} " + " ".join(f"{k}={v}" for k, v in zip(report.KEY, key)))
    for problem in report.PROBLEMS:
        print(f"FAILED {problem}")
    sys.exit(1 if failed or report.PROBLEMS else 0)


if __name__ == "__main__":
    main()
