#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark consoles of two kernels into one side-by-side report.

Usage: report.py <results dir> <baseline dir> <patched dir> <accelerator>
                 [<workload baseline dir> <workload patched dir>]

Each kernel directory holds the console logs of each IOMMU mode (<mode>.log,
and <mode>-smp.log for runs of more threads). The guest's bench step
(guest/steps/bench.sh) prints JSON objects there as KTAP diagnostic lines:
the matrix it was asked for, then one object per run. A run of the matrix
with no object, a failed run and a run that lost trace events are failed
rows, and the report then fails. Writes bench.csv, bench.json and bench.png
(when gnuplot is there) into <results dir> and prints the tables.
"""

import csv
import json
import os
import re
import subprocess
import sys

import cost_model
import protocol
import workload_table
from ratios import per_thousand, ratio

MODES = protocol.MODES
# "# {...}": one JSON object of the bench step
OBJECT = re.compile(r"^\s*# (\{.*\})\s*$")
STATS = ("mean", "p50", "p99")
KEY = ("mode", "map", "granule", "threads", "depth")


def metrics(result):
    """Latencies in ns, and operations, of one tool result (Linux 7.3's tool
    gives means only)."""
    found = {f"{op}_{stat}": result[op][stat + "_ns"]
             for op in ("map", "unmap") for stat in STATS
             if stat + "_ns" in result.get(op, {})}
    if "ops" in result:
        found["ops"] = result["ops"]
    return found


COUNTERS = ("qi_per_1k_unmaps", "alloc_iova_per_1k_maps", "inv_pages_per_page",
            "whole_inv", "whole_per_1k_unmaps")


def counted(attrs, mode, ops, granule):
    """The counters of one counting run, per 1000 calls or per page."""
    qi = attrs.get(protocol.COUNT_WAIT)
    # In caching mode every map also waits for an invalidation of the new
    # mapping (protocol.COUNT_MAP_FLUSH): count the unmap side only.
    if mode == protocol.MODE_CM and qi is not None:
        qi -= attrs.get(protocol.COUNT_MAP_FLUSH, 0)
    pages = attrs.get(protocol.COUNT_PAGES)
    # ... and of the pages, those of the new mappings: a size-aligned block
    # of the granule rounded up to a power of two per map.
    if mode == protocol.MODE_CM and pages is not None and ops:
        pages -= ops * (1 << (granule - 1).bit_length())
    return {
        "qi_per_1k_unmaps": per_thousand(qi, ops),
        "alloc_iova_per_1k_maps": per_thousand(attrs.get(protocol.COUNT_ALLOC), ops),
        # Pages invalidated page-selectively by unmaps, per page unmapped
        "inv_pages_per_page": round(pages / (ops * granule), 2)
        if pages is not None and ops else None,
        "whole_inv": attrs.get(protocol.COUNT_WHOLE),
        "whole_per_1k_unmaps": per_thousand(attrs.get(protocol.COUNT_WHOLE), ops),
    }


def run_key(run, mode):
    return (mode,) + tuple(str(run[k]) for k in KEY[1:])


def matrix_keys(matrix, mode):
    return {(mode, m, str(g), str(t), str(d)) for m in matrix["maps"]
            for g in matrix["granules"] for t in matrix["threads"] for d in matrix["depths"]}


def run_entry(run, mode):
    """What the report keeps of one run object."""
    if "skipped" in run:
        return {"skipped": run["skipped"]}
    if run.get("rc"):
        return {"failed": f"the run exited {run['rc']}"}
    if not run.get("timed"):
        return {"failed": "no result from the tool"}
    entry = dict(metrics(run["timed"]), domain=run.get("domain"))
    count = run.get("counted")
    if count is None:
        return entry
    if count.get("rc"):
        entry["failed"] = f"its counting run exited {count['rc']}"
    elif count.get(protocol.COUNT_LOST):
        entry["failed"] = f"{count[protocol.COUNT_LOST]} trace events lost"
    else:
        ops = (count.get("result") or {}).get("ops")
        entry.update(counted(count, mode, ops, int(run[protocol.KIND_RUN]["granule"])))
    return entry


def console_objects(path):
    """The JSON objects a guest printed on diagnostic lines of its console;
    a line that is not one (cut, or run into by a kernel message) is a
    problem of the console."""
    with open(path, errors="replace") as log:
        for number, line in enumerate(log, 1):
            match = OBJECT.match(line.rstrip("\r\n"))
            if match:
                try:
                    yield json.loads(match.group(1))
                except ValueError:
                    PROBLEMS.append(f"{path}:{number}: not a JSON object")


def parse_console(path, mode):
    """{key: run} for the runs of one console log, with a failed run for
    each of the matrix the console holds no object of."""
    runs, keys = {}, None
    for obj in console_objects(path):
        if protocol.KIND_MATRIX in obj:
            keys = matrix_keys(obj[protocol.KIND_MATRIX], mode)
        elif protocol.KIND_RUN in obj:
            runs[run_key(obj[protocol.KIND_RUN], mode)] = run_entry(obj, mode)
    if keys is None:
        PROBLEMS.append(f"{path}: no benchmark matrix (the guest never reached its bench step)")
    for key in (keys or set()) - set(runs):
        runs[key] = {"failed": "no result in the console (it ends before the run)"}
    return runs


# What is wrong with a console as a whole
PROBLEMS = []


def load(kernel_dir):
    """Every run of one kernel: <mode>.log and, with more threads,
    <mode>-smp.log; a console of a mode the protocol does not list stops
    the report (protocol.console_mode)."""
    runs = {}
    for mode, path in protocol.consoles(kernel_dir):
        runs.update(parse_console(path, mode))
    return runs


def sort_key(key):
    mode, map_mode, granule, threads, depth = key
    return (MODES.index(mode), map_mode, int(granule), int(threads), int(depth))


def rows(baseline, patched):
    for key in sorted(set(baseline) | set(patched), key=sort_key):
        b, p = baseline.get(key, {}), patched.get(key, {})
        direct = patched.get((protocol.MODE_DIRECT,) + key[1:], {})
        row = dict(zip(KEY, key), domain=p.get("domain") or b.get("domain"))
        row["failed"] = "; ".join(f"{name}: {run.get('failed', 'no run')}"
                                  for name, run in (("baseline", b), ("patched", p))
                                  if not run or "failed" in run) or None
        for op in ("map", "unmap"):
            for stat in STATS:
                row[f"baseline_{op}_{stat}"] = b.get(f"{op}_{stat}")
                row[f"patched_{op}_{stat}"] = p.get(f"{op}_{stat}")
            # p50 where the tool has it, else the mean (mainline's tool).
            stat = "p50" if p.get(f"{op}_p50") and b.get(f"{op}_p50") else "mean"
            row[f"ratio_{op}"] = ratio(p.get(f"{op}_{stat}"), b.get(f"{op}_{stat}"))
            row[f"vs_direct_{op}"] = ratio(p.get(f"{op}_{stat}"), direct.get(f"{op}_{stat}"))
        for counter in COUNTERS:
            row["baseline_" + counter] = b.get(counter)
            row["patched_" + counter] = p.get(counter)
        for who in ("baseline", "patched"):
            row[f"{who}_estimated_kvm_unmap_us"] = cost_model.total_us(row, who)
        yield row


def cell(value, width):
    return format("-" if value is None else value, f">{width}")


# (key, title, width) of the columns every table starts with
HEAD = [("mode", "mode", -6), ("domain", "domain", -8), ("map", "map", -8),
        ("granule", "pages", 5), ("threads", "thr", 3), ("depth", "depth", 5)]


def print_table(title, table, columns):
    print(title)
    columns = HEAD + columns
    print("  ".join(format(t, f"<{-w}") if w < 0 else format(t, f">{w}")
                    for _, t, w in columns))
    for row in table:
        print("  ".join(format(str(row[k] or "-"), f"<{-w}") if w < 0 else cell(row[k], w)
                        for k, _, w in columns))
    print()


def latency_columns(op):
    cols = []
    for who, label in (("baseline", "baseline"), ("patched", "patched")):
        cols += [(f"{who}_{op}_mean", f"{label} mean", 13), (f"{who}_{op}_p50", "p50", 7),
                 (f"{who}_{op}_p99", "p99", 7)]
    return cols + [(f"ratio_{op}", "p/b", 5), (f"vs_direct_{op}", "/direct", 7)]


def print_tables(table, accel):
    print(f"{accel}. Latencies in ns per call. p/b = patched/baseline, /direct = "
          "patched/(patched, IOMMU off); both on p50 (on the mean for mainline's tool).\n")
    for op in ("map", "unmap"):
        print_table(f"dma_{op}", table, latency_columns(op))
    wait = f"{protocol.COUNT_WAIT}/1k unmaps: baseline"
    alloc = f"{protocol.COUNT_ALLOC}/1k maps: baseline"
    counters = [("baseline_qi_per_1k_unmaps", wait, len(wait)),
                ("patched_qi_per_1k_unmaps", "patched", 7),
                ("baseline_alloc_iova_per_1k_maps", alloc, len(alloc)),
                ("patched_alloc_iova_per_1k_maps", "patched", 7),
                ("baseline_inv_pages_per_page", "inv. pages/page: baseline", 25),
                ("patched_inv_pages_per_page", "patched", 7),
                ("baseline_whole_inv", "domain-wide: baseline", 21),
                ("patched_whole_inv", "patched", 7)]
    if any(row[key] is not None for row in table for key, _, _ in counters):
        print_table(f"counters (separate runs with kprobes; {protocol.COUNT_WAIT} without the "
                    f"map side in {protocol.MODE_CM}; invalidated pages from the qi_submit "
                    "trace event)",
                    table, counters)


def baseline_patched_lines(data, index, col, color, mode):
    """The gnuplot lines of one mode: baseline in column <col> dashed,
    patched in the next one solid, both in <color>."""
    return [f'"{data}" index {index} using 1:{col + who} with linespoints '
            f'dt {2 - who} lc {color} title "{mode} {name}"'
            for who, name in ((0, "baseline"), (1, "patched"))]


def write_chart(table, path, workloads=()):
    """Baseline (dashed) against patched (solid) p50, one thread, depth 1;
    and, with workloads, each one's rate as a ratio to the IOMMU off."""
    data = path + ".dat"
    picked = [r for r in table if r["threads"] == "1" and r["depth"] == "1"
              and r["map"] == "single"]
    present = [m for m in MODES if any(r["mode"] == m for r in picked)]
    with open(data, "w") as out:
        for mode in present:
            for r in (r for r in picked if r["mode"] == mode):
                values = []
                for op in ("map", "unmap"):
                    for who in ("baseline", "patched"):
                        v = r.get(f"{who}_{op}_p50") or r.get(f"{who}_{op}_mean")
                        values.append("NaN" if v is None else str(v))
                out.write(f'{r["granule"]} {" ".join(values)}\n')
            out.write("\n\n")
    plots = []
    for col, what in ((2, "dma_map"), (4, "dma_unmap")):
        lines = [line for index, mode in enumerate(present)
                 for line in baseline_patched_lines(data, index, col, index + 1, mode)]
        plots.append(f'set title "{what} p50, 1 thread, depth 1"\nplot ' + ", ".join(lines))
    script = (f'set terminal pngcairo size {1800 if workloads else 1200},500 noenhanced\n'
              f'set output "{path}"\nset multiplot layout 1,{3 if workloads else 2}\n'
              'set logscale xy\nset xrange [0.7:1500]\nset xlabel "granule (pages)"\n'
              'set ylabel "ns per call"\nset key top left\n' + "\n".join(plots) + "\n" +
              workload_plot(workloads, path + ".w.dat") + "unset multiplot\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    for name in (data, path + ".w.dat"):
        if os.path.exists(name):
            os.remove(name)


def workload_plot(workloads, data):
    """The gnuplot panel of the workloads: each one's first rate (transmit
    or IOPS) over the IOMMU off, per mode, baseline dashed, patched solid."""
    picked = [r for r in workloads if r["metric"] in ("tx_pps", "iops") and r["mode"] != protocol.MODE_DIRECT]
    names = list(dict.fromkeys(r["workload"] for r in picked))
    modes = [m for m in MODES if any(r["mode"] == m for r in picked)]
    if not names:
        return ""
    with open(data, "w") as out:
        for mode in modes:
            for index, name in enumerate(names):
                row = next((r for r in picked if r["workload"] == name and r["mode"] == mode), {})
                values = [row.get(k) for k in ("baseline_vs_direct", "patched_vs_direct")]
                out.write(f"{index} " + " ".join("NaN" if v is None else str(v)
                                                 for v in values) + "\n")
            out.write("\n\n")
    tics = ", ".join(f'"{name}" {index}' for index, name in enumerate(names))
    lines = [line for index, mode in enumerate(modes)
             for line in baseline_patched_lines(data, index, 2, index + 2, mode)]
    return ('unset logscale\nset xrange [-0.5:' + str(len(names) - 0.5) + ']\n'
            'set yrange [0:1.1]\nset xtics rotate by -30 (' + tics + ')\n'
            'set xlabel ""\nset ylabel "rate / rate with the IOMMU off"\n'
            'set key bottom left\nset title "workloads (transmit packets/s, IOPS)"\nplot ' +
            ", ".join(lines) + "\n")


def main():
    results, baseline_dir, patched_dir, accel = sys.argv[1:5]
    table = list(rows(load(baseline_dir), load(patched_dir)))
    workloads = []
    if len(sys.argv) == 7:
        workloads = list(workload_table.rows(
            *(workload_table.load(d, console_objects, PROBLEMS) for d in sys.argv[5:7])))
    if not table:
        sys.exit(f"report: no finished benchmark runs in {baseline_dir} or {patched_dir}" +
                 "".join(f"\n{problem}" for problem in PROBLEMS))
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "bench.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    if workloads:
        with open(os.path.join(results, "workloads.csv"), "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(workloads[0]))
            writer.writeheader()
            writer.writerows(workloads)
    with open(os.path.join(results, "bench.json"), "w") as out:
        json.dump({"accelerator": accel, "unit": "ns", "runs": table,
                   "workloads": workloads}, out, indent=1)
    print_tables(table, accel)
    cost_model.print_estimate(table)
    if workloads:
        workload_table.print_rows(workloads)
    failed = [row for row in table + workloads if row["failed"]]
    for problem in PROBLEMS:
        print(f"FAILED {problem}")
    for row in failed:
        keys = KEY if "granule" in row else ("workload", "metric", "mode")
        print("FAILED " + " ".join(f"{k}={row[k]}" for k in keys) + f": {row['failed']}")
    try:
        write_chart(table, os.path.join(results, "bench.png"), workloads)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"report: no chart ({err})", file=sys.stderr)
    print(f"written: {results}/bench.csv, " + ("workloads.csv, " if workloads else "") +
          "bench.json, bench.png")
    if failed or PROBLEMS:
        sys.exit(f"report: {len(failed)} runs failed or are missing, {len(PROBLEMS)} consoles "
                 f"hold no benchmark (the consoles are in "
                 f"{baseline_dir} and {patched_dir}; measure again: make clean-results)")


if __name__ == "__main__":
    main()
