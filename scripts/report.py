#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark consoles of two kernels into one side-by-side report.

Usage: report.py <results dir> <baseline dir> <patched dir> <accelerator>

Each kernel directory holds the console logs of each IOMMU mode (<mode>.log,
and <mode>-smp.log for runs of more threads) with the WB-RUN and WB-COUNT
blocks of guest/bench.sh. Writes bench.csv,
bench.json and bench.png (when gnuplot is there) into <results dir> and
prints the tables.
"""

import csv
import json
import os
import re
import subprocess
import sys

MODES = ["off", "lazy", "strict", "cm"]
BLOCK = re.compile(r"^WB-(RUN|COUNT) ?(.*)$")
END = re.compile(r"^WB-(RUN|COUNT)-END rc=(\d+)")
# A run mainline's tool cannot do (guest/bench.sh names it)
SKIP = re.compile(r"^WB-RUN-SKIP (.*)$")
# Linux 7.3's tool (and 6.12's): "average map latency(us):0.8 standard deviation:0.3"
UPSTREAM = re.compile(r"average (map|unmap) latency\(us\):([\d.]+) standard deviation:([\d.]+)")
STATS = ("mean", "p50", "p99")
KEY = ("mode", "map", "granule", "threads", "depth")


def parse_output(lines):
    """Metrics in ns of one run, from either tool's output."""
    metrics = {}
    for line in lines:
        if line.startswith("{"):
            result = json.loads(line)
            for op in ("map", "unmap"):
                for stat in STATS:
                    metrics[f"{op}_{stat}"] = result[op][stat + "_ns"]
            metrics["ops"] = result["ops"]
            continue
        match = UPSTREAM.search(line)
        if match:
            metrics[match.group(1) + "_mean"] = round(float(match.group(2)) * 1000)
    return metrics


def per_thousand(calls, ops):
    return round(calls * 1000 / ops, 1) if ops and calls is not None else None


COUNTERS = ("qi_per_1k_unmaps", "alloc_iova_per_1k_maps", "inv_pages_per_page",
            "whole_inv")


def counted(attrs, mode, ops, granule):
    """The counters of one counting run, per 1000 calls or per page."""
    qi = attrs.get("qi_submit_sync")
    # In caching mode every map also waits for an invalidation of the new
    # mapping (cache_tag_flush_range_np): count the unmap side only.
    if mode == "cm" and qi is not None:
        qi -= attrs.get("cache_tag_flush_range_np", 0)
    pages = attrs.get("psi_pages")
    # ... and of the pages, those of the new mappings: a size-aligned block
    # of the granule rounded up to a power of two per map.
    if mode == "cm" and pages is not None and ops:
        pages -= ops * (1 << (granule - 1).bit_length())
    return {
        "qi_per_1k_unmaps": per_thousand(qi, ops),
        "alloc_iova_per_1k_maps": per_thousand(attrs.get("alloc_iova"), ops),
        # Pages invalidated page-selectively by unmaps, per page unmapped
        "inv_pages_per_page": round(pages / (ops * granule), 2)
        if pages is not None and ops else None,
        "whole_inv": attrs.get("whole"),
    }


def run_key(attrs, mode):
    return tuple([mode] + [attrs.get(k, "single" if k == "map" else "1") for k in KEY[1:]])


def parse_console(path, mode):
    """{key: run} for the runs of one console log; a run that failed, lost
    trace events or was cut off by the console's end says so in "failed"."""
    runs, attrs, lines, kind, last = {}, None, [], None, None
    with open(path, errors="replace") as log:
        for line in log:
            line = line.rstrip("\r\n")
            end, start, skip = END.match(line), BLOCK.match(line), SKIP.match(line)
            if skip:
                attrs = dict(w.split("=", 1) for w in skip.group(1).split() if "=" in w)
                runs[run_key(attrs, mode)] = {"skipped": True}
            elif end and kind:
                rc = end.group(2)
                if kind == "RUN":
                    last = run_key(attrs, mode)
                    runs[last] = (dict(parse_output(lines), domain=attrs.get("domain"))
                                  if rc == "0" else {"failed": f"the run exited {rc}"})
                elif last in runs and "failed" not in runs[last]:
                    if rc != "0":
                        runs[last]["failed"] = f"its counting run exited {rc}"
                    elif attrs.get("lost"):
                        runs[last]["failed"] = f"{attrs['lost']} trace events lost"
                    else:
                        ops = parse_output(lines).get("ops")
                        runs[last].update(counted(attrs, mode, ops,
                                                  int(last[KEY.index("granule")])))
                kind = None
            elif start and not end:
                kind = start.group(1)
                attrs = dict(w.split("=", 1) for w in start.group(2).split() if "=" in w)
                if kind == "COUNT":
                    attrs = {k: int(v) for k, v in attrs.items()}
                lines = []
            elif kind:
                lines.append(line)
    if kind == "RUN":
        runs[run_key(attrs, mode)] = {"failed": "the console ends inside the run"}
    elif kind == "COUNT" and last in runs:
        runs[last]["failed"] = "the console ends inside its counting run"
    return runs


def load(kernel_dir):
    """Every run of one kernel: <mode>.log and, with more threads, <mode>-smp.log."""
    runs = {}
    for mode in MODES:
        for name in (mode + ".log", mode + "-smp.log"):
            path = os.path.join(kernel_dir, name)
            if os.path.exists(path):
                runs.update(parse_console(path, mode))
    return runs


def ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


def sort_key(key):
    mode, map_mode, granule, threads, depth = key
    return (MODES.index(mode), map_mode, int(granule), int(threads), int(depth))


def rows(baseline, patched):
    for key in sorted(set(baseline) | set(patched), key=sort_key):
        b, p = baseline.get(key, {}), patched.get(key, {})
        direct = patched.get(("off",) + key[1:], {})
        row = dict(zip(KEY, key), domain=p.get("domain") or b.get("domain"))
        row["failed"] = "; ".join(f"{name}: {run.get('failed', 'no run')}"
                                  for name, run in (("baseline", b), ("patched", p))
                                  if not run or "failed" in run) or None
        for op in ("map", "unmap"):
            for stat in STATS:
                row[f"base_{op}_{stat}"] = b.get(f"{op}_{stat}")
                row[f"patched_{op}_{stat}"] = p.get(f"{op}_{stat}")
            # p50 where the tool has it, else the mean (mainline's tool).
            stat = "p50" if p.get(f"{op}_p50") and b.get(f"{op}_p50") else "mean"
            row[f"ratio_{op}"] = ratio(p.get(f"{op}_{stat}"), b.get(f"{op}_{stat}"))
            row[f"vs_direct_{op}"] = ratio(p.get(f"{op}_{stat}"), direct.get(f"{op}_{stat}"))
        for counter in COUNTERS:
            row["base_" + counter] = b.get(counter)
            row["patched_" + counter] = p.get(counter)
        yield row


def cell(value, width):
    return format("-" if value is None else value, f">{width}")


# (key, title, width) of the columns every table starts with
HEAD = [("mode", "mode", -6), ("domain", "domain", -6), ("map", "map", -8),
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
    for who, label in (("base", "base"), ("patched", "patched")):
        cols += [(f"{who}_{op}_mean", f"{label} mean", 12), (f"{who}_{op}_p50", "p50", 7),
                 (f"{who}_{op}_p99", "p99", 7)]
    return cols + [(f"ratio_{op}", "p/b", 5), (f"vs_direct_{op}", "/direct", 7)]


def print_tables(table, accel):
    print(f"{accel}. Latencies in ns per call. p/b = patched/baseline, /direct = "
          "patched/(patched, IOMMU off); both on p50 (on the mean for mainline's tool).\n")
    for op in ("map", "unmap"):
        print_table(f"dma_{op}", table, latency_columns(op))
    counters = [("base_qi_per_1k_unmaps", "qi_submit_sync/1k unmaps: base", 30),
                ("patched_qi_per_1k_unmaps", "patched", 7),
                ("base_alloc_iova_per_1k_maps", "alloc_iova/1k maps: base", 24),
                ("patched_alloc_iova_per_1k_maps", "patched", 7),
                ("base_inv_pages_per_page", "inv. pages/page: base", 21),
                ("patched_inv_pages_per_page", "patched", 7),
                ("base_whole_inv", "domain-wide: base", 17),
                ("patched_whole_inv", "patched", 7)]
    if any(row[key] is not None for row in table for key, _, _ in counters):
        print_table("counters (separate runs with kprobes; qi_submit_sync without the "
                    "map side in cm; invalidated pages from the qi_submit trace event)",
                    table, counters)


def write_chart(table, path):
    """Baseline (dashed) against patched (solid) p50, one thread, depth 1."""
    data = path + ".dat"
    picked = [r for r in table if r["threads"] == "1" and r["depth"] == "1"
              and r["map"] == "single"]
    present = [m for m in MODES if any(r["mode"] == m for r in picked)]
    with open(data, "w") as out:
        for mode in present:
            for r in (r for r in picked if r["mode"] == mode):
                values = []
                for op in ("map", "unmap"):
                    for who in ("base", "patched"):
                        v = r.get(f"{who}_{op}_p50") or r.get(f"{who}_{op}_mean")
                        values.append("NaN" if v is None else str(v))
                out.write(f'{r["granule"]} {" ".join(values)}\n')
            out.write("\n\n")
    plots = []
    for col, what in ((2, "dma_map"), (4, "dma_unmap")):
        lines = []
        for index, mode in enumerate(present):
            lines.append(f'"{data}" index {index} using 1:{col} with linespoints '
                         f'dt 2 lc {index + 1} title "{mode} baseline"')
            lines.append(f'"{data}" index {index} using 1:{col + 1} with linespoints '
                         f'dt 1 lc {index + 1} title "{mode} patched"')
        plots.append(f'set title "{what} p50, 1 thread, depth 1"\nplot ' + ", ".join(lines))
    script = (f'set terminal pngcairo size 1200,500 noenhanced\nset output "{path}"\n'
              'set multiplot layout 1,2\nset logscale xy\nset xrange [0.7:1500]\n'
              'set xlabel "granule (pages)"\n'
              'set ylabel "ns per call"\nset key top left\n' + "\n".join(plots) +
              "\nunset multiplot\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(data)


def main():
    results, baseline_dir, patched_dir, accel = sys.argv[1:5]
    table = list(rows(load(baseline_dir), load(patched_dir)))
    if not table:
        sys.exit(f"report: no finished benchmark runs in {baseline_dir} or {patched_dir}")
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "bench.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    with open(os.path.join(results, "bench.json"), "w") as out:
        json.dump({"accelerator": accel, "unit": "ns", "runs": table}, out, indent=1)
    print_tables(table, accel)
    failed = [row for row in table if row["failed"]]
    for row in failed:
        print("FAILED " + " ".join(f"{k}={row[k]}" for k in KEY) + f": {row['failed']}")
    try:
        write_chart(table, os.path.join(results, "bench.png"))
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"report: no chart ({err})", file=sys.stderr)
    print(f"written: {results}/bench.csv, bench.json, bench.png")
    if failed:
        sys.exit(f"report: {len(failed)} runs failed or are missing (the consoles are in "
                 f"{baseline_dir} and {patched_dir}; measure again: make clean-results)")


if __name__ == "__main__":
    main()
