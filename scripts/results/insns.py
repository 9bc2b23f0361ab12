#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print, side by side for several kernels, the instructions that one call
of each function traced by scripts/run/insns.sh executed in each function it
went through (its own instructions, not its callees'), and the total.

The calls of one trace must agree: the table takes the median call and
says so when they differed. Instructions are exact (QEMU's gdbstub steps
each one); they are not time: no caches, no IOTLB misses, no VM exits.

Usage: insns.py <title> <label>:<trace.json>:<vmlinux> [...]
"""
import bisect
import collections
import json
import subprocess
import sys


def symbols(vmlinux):
    """Sorted (address, name) of the kernel's text symbols."""
    nm = subprocess.run(["nm", "-n", vmlinux], capture_output=True, text=True, check=True)
    syms = []
    for line in nm.stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            syms.append((int(fields[0], 16), fields[2]))
    return syms


def per_function(call, syms):
    starts = [address for address, _ in syms]
    return collections.Counter(syms[bisect.bisect_right(starts, pc) - 1][1] for pc in call)


def median_call(calls, where):
    if not calls:
        sys.exit(f"{where}: no call traced")
    calls = sorted(calls, key=len)
    if len(calls[0]) != len(calls[-1]):
        print(f"note: {where}: calls of {len(calls[0])}-{len(calls[-1])} instructions; "
              "the median one is shown")
    return calls[len(calls) // 2]


def main(title, specs):
    kernels = []
    for spec in specs:
        label, trace, vmlinux = spec.split(":", 2)
        with open(trace) as f:
            kernels.append((label, json.load(f), symbols(vmlinux)))
    for traced in kernels[0][1]:
        counts = [per_function(median_call(trace.get(traced, []), f"{label} {traced}"), syms)
                  for label, trace, syms in kernels]
        names = sorted(set().union(*counts), key=lambda n: (-max(c[n] for c in counts), n))
        print(f"\n{traced}, {title}: instructions of one call, function by function")
        print(f"{'function':40}" + "".join(f"{label:>10}" for label, _, _ in kernels))
        for name in names:
            print(f"{name:40}" + "".join(f"{c[name]:>10}" for c in counts))
        print(f"{'total':40}" + "".join(f"{sum(c.values()):>10}" for c in counts))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
