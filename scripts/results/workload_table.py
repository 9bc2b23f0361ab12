# SPDX-License-Identifier: GPL-2.0
"""The workloads' part of the report (scripts/results/report.py).

Each kernel directory holds one console per IOMMU mode (<mode>.log) of the
guest's workload step (guest/steps/workload.sh), which prints one JSON
object per workload: packets per second sent and received by pktgen's pair
of NICs, or IOPS of randread, on the guest's clock. Each row is one
workload, one of its numbers and one mode, baseline beside patched, each
also as a ratio to the same kernel with the IOMMU off; the goals of the
ATC'15 comparison are checked on the patched kernel at 64-byte packets.
"""

import protocol
from protocol import MODE_CM, MODE_DIRECT, MODE_LAZY, MODE_STRICT
from ratios import ratio

MODES = protocol.MODES
# (mode, what it is compared with, the lowest ratio the goal accepts)
GOALS = {MODE_LAZY: (MODE_DIRECT, 0.9), MODE_STRICT: (MODE_DIRECT, 0.75),
         MODE_CM: (MODE_LAZY, 0.9)}


# The members of a workload object that are its rates (guest/steps/
# workload.sh's pktgen tests, workload/randread.c's reads), in the order
# the table shows them; and the "size" member, in bytes, of the frames the
# goals are judged at.
RATES = ("tx_pps", "rx_pps", "iops")
GOAL_SIZE = 64
# What every table of workload rates must say of its numbers
CLOCK = ("packets/s or IOPS on the guest's -icount clock (instructions, not device time; "
         "IOPS also count the idle clock's jumps to the next timer, so they are not judged)")


def metrics(objects):
    """The rates a workload's objects (every kernel and mode) carry: read
    from their members, never guessed from the workload's name. A workload
    none of whose objects has a number (skipped, failed or never reported
    everywhere) has one row, of no metric, that says why."""
    found = tuple(rate for rate in RATES if any(rate in obj for obj in objects))
    return found or (None,)


def frame_size(objects):
    """The "size" member of a workload's objects, None for a workload
    without frames (the reads) or without any result."""
    return next((obj["size"] for obj in objects if "size" in obj), None)


def load(kernel_dir, objects, problems):
    """{(workload, mode): its object} of one kernel's consoles, with a
    failed one for each workload the step planned and never reported."""
    found, consoles = {}, 0
    for mode, path in protocol.consoles(kernel_dir):
        consoles += 1
        planned = None
        for obj in objects(path):
            if protocol.KIND_PLAN in obj:
                planned = obj[protocol.KIND_PLAN]
            elif protocol.KIND_WORKLOAD in obj:
                found[(obj[protocol.KIND_WORKLOAD], mode)] = obj
        if planned is None:
            problems.append(f"{path}: no workload plan (the guest never reached its step)")
        for name in planned or []:
            found.setdefault((name, mode), {"failed": "no result in the console "
                                                      "(it ends before the workload)"})
    if not consoles:
        problems.append(f"{kernel_dir}: no workload console")
    return found


def goal(size, mode, values):
    """'met', 'missed' or None: the ATC'15 goal of <mode> for the patched
    kernel, at 64-byte packets (<size>, the objects' "size" member). Not
    judged on the reads, which have no size: an idle guest's -icount clock
    jumps to its next timer while QEMU completes a read on a host thread,
    so their IOPS count timer ticks more than the path."""
    if mode not in GOALS or size != GOAL_SIZE:
        return None
    against, lowest = GOALS[mode]
    value = ratio(values.get(mode), values.get(against))
    return None if value is None else ("met" if value >= lowest else "missed")


def row_keys(*kernels):
    """(workload, frame size, metric, mode) of each row a table of
    <kernels> has, in the table's order: every workload and mode any of
    them reported or planned, each rate any of its objects carries."""
    found = [key for runs in kernels for key in runs]
    modes = [m for m in MODES if any(m == mode for _, mode in found)]
    for name in sorted({name for name, _ in found}):
        objects = [runs[key] for runs in kernels for key in runs if key[0] == name]
        for metric in metrics(objects):
            for mode in modes:
                yield name, frame_size(objects), metric, mode


def failure(run):
    """Why a workload's run (its object, {} when it never reported) has no
    result; None when it has one or was skipped."""
    if run and "failed" not in run:
        return None
    return run.get("failed", "no result in the console")


def vs_direct(runs, name, metric, mode):
    """<metric> of workload <name> in <mode> as a ratio to the same kernel's
    with the IOMMU off, None when either is missing."""
    return ratio(runs.get((name, mode), {}).get(metric),
                 runs.get((name, MODE_DIRECT), {}).get(metric))


def rows(baseline, patched):
    """The table's rows; a workload missing or failed on either kernel is a
    failed row that says why."""
    for name, size, metric, mode in row_keys(baseline, patched):
        b, p = baseline.get((name, mode), {}), patched.get((name, mode), {})
        skipped = "skipped" in b and "skipped" in p
        failed = "; ".join(f"{who}: {failure(run)}" for who, run in (("baseline", b), ("patched", p))
                           if failure(run)) or None
        yield {
            "workload": name, "metric": metric, "mode": mode, "failed": failed,
            "driver": p.get("driver") or b.get("driver"),
            "device": p.get("device") or b.get("device"),
            "baseline": b.get(metric),
            "baseline_vs_direct": vs_direct(baseline, name, metric, mode),
            "patched": p.get(metric),
            "patched_vs_direct": vs_direct(patched, name, metric, mode),
            "patched_vs_baseline": ratio(p.get(metric), b.get(metric)),
            "goal": "skipped" if skipped else goal(
                size, mode, {m: patched.get((name, m), {}).get(metric) for m in MODES}),
        }


def print_rows(table):
    goals = ", ".join(f"{mode} >= {lowest}x {against}"
                      for mode, (against, lowest) in GOALS.items())
    print(f"workloads: {CLOCK}; /off = the same kernel in mode {MODE_DIRECT}, the IOMMU off; "
          f"goal (patched, 64 B): {goals}")
    columns = [("workload", -26), ("metric", -6), ("mode", -6), ("baseline", 9),
               ("baseline_vs_direct", 5), ("patched", 9), ("patched_vs_direct", 5),
               ("patched_vs_baseline", 5), ("goal", -6)]
    titles = {"baseline_vs_direct": "/off", "patched_vs_direct": "/off",
              "patched_vs_baseline": "p/b"}
    print("  ".join(format(titles.get(k, k), f"<{-w}" if w < 0 else f">{w}")
                    for k, w in columns))
    for row in table:
        print("  ".join(format("-" if row[k] is None else str(row[k]),
                               f"<{-w}" if w < 0 else f">{w}") for k, w in columns))
    print()
