#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make hw-report: two result sets of the hardware kit (hw/hw-run.sh) on
one machine, say Linux 7.3 and the series, as make's report: report.py's
tables and chart (mean, p50, p99), A as its baseline, B as its patched.

Each directory holds <mode>.log (the kit's consoles, as a guest's) and
machine.json. Runs from different machines (machine.json's "machine": CPU,
CPU count, NUMA nodes, the IOMMUs and their capabilities, the device) or
of different matrices are refused, naming what differs, unless --anyway.

Usage: hw-report.py [--anyway] <results dir> <A dir> <B dir>
"""

import json
import os
import subprocess
import sys

import protocol

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.py")


def described(path):
    try:
        with open(os.path.join(path, "machine.json")) as f:
            return json.load(f)
    except (OSError, ValueError) as err:
        sys.exit(f"hw-report: {path} is no result set of the kit (machine.json: {err})")


def differences(a, b, what):
    """'<what>.<key>: <A> against <B>' for each key whose values differ."""
    return [f"{what}.{key}: {a.get(key)!r} against {b.get(key)!r}"
            for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]


def comparable(machine, other):
    """<machine> as compared with <other>: the SMMUv3 features come from the
    kernel's log, which a long-running machine may have lost ([]), so they
    are compared only when both runs still had them."""
    if not machine.get("smmuv3") or not other.get("smmuv3"):
        return {k: v for k, v in machine.items() if k != "smmuv3"}
    return machine


# The boot parameters that change what the kit measures: the two runs are
# compared all the same (strict against lazy can be the point), but said.
IOMMU_PARAMETERS = ("iommu", "intel_iommu", "amd_iommu", "iova", "swiotlb", "arm-smmu",
                    "arm_smmu", "iommu.strict", "iommu.passthrough", "iommu.forcedac")


def iommu_parameters(cmdline):
    return sorted(word for word in cmdline.split()
                  if word.split("=")[0].split(".")[0] in IOMMU_PARAMETERS)


def has_workloads(path):
    """Whether the consoles of <path> hold a workload plan (--nic, --block)."""
    for _, console in protocol.consoles(path):
        with open(console, errors="replace") as f:
            if any(f'# {{"{protocol.KIND_PLAN}":' in line for line in f):
                return True
    return False


def main(argv):
    anyway = "--anyway" in argv
    args = [a for a in argv if a != "--anyway"]
    if len(args) != 3:
        sys.exit(__doc__)
    results, a_dir, b_dir = args
    a, b = described(a_dir), described(b_dir)
    differ = differences(comparable(a["machine"], b["machine"]),
                         comparable(b["machine"], a["machine"]), "machine") + \
        differences(a["matrix"], b["matrix"], "matrix")
    if differ and not anyway:
        sys.exit("hw-report: A and B are runs of different machines or matrices "
                 "(ANYWAY=1 compares them all the same):\n  " + "\n  ".join(differ))
    for line in differ:
        print(f"hw-report: compared anyway: {line}")
    print(f"baseline = A: {a_dir} ({a['kernel']['release']}, tool {a['tool']}); "
          f"patched = B: {b_dir} ({b['kernel']['release']}, tool {b['tool']})")
    params = [iommu_parameters(d["kernel"]["cmdline"]) for d in (a, b)]
    if params[0] != params[1]:
        print(f"hw-report: A and B booted with different IOMMU parameters: "
              f"A {' '.join(params[0]) or '(none)'}, B {' '.join(params[1]) or '(none)'}")
    for name, d in (("A", a), ("B", b)):
        unset = {m: v["not_set"] for m, v in d["modes"].items() if "not_set" in v}
        for mode, why in unset.items():
            print(f"{name}: mode {mode} not set: {why}")
    label = (f"Hardware: {a['machine']['cpu']}, {a['machine']['cpus']} CPUs, host time; "
             f"{protocol.MODE_DIRECT} is the identity domain")
    extra = [a_dir, b_dir] if has_workloads(a_dir) or has_workloads(b_dir) else []
    return subprocess.run([sys.executable, REPORT, results, a_dir, b_dir, label, *extra]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
