#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark consoles of two kernels into one side-by-side table.

Usage: report.py <results dir> <baseline dir> <patched dir> <accelerator>

Each kernel directory holds one console log per IOMMU mode (<mode>.log) with
WB-RUN blocks from guest/bench.sh. Writes bench.csv, bench.json and bench.png
(when gnuplot is there) into <results dir> and prints the table.
"""

import csv
import json
import os
import re
import subprocess
import sys

MODES = ["off", "lazy", "strict", "cm"]
RUN = re.compile(r"^WB-RUN (.*)$")
END = re.compile(r"^WB-RUN-END rc=(\d+)")
# Linux 6.12's tool: "average map latency(us):0.8 standard deviation:0.3"
UPSTREAM = re.compile(r"average (map|unmap) latency\(us\):([\d.]+) standard deviation:([\d.]+)")


def parse_run(lines):
    """Metrics of one run, from the tool's own output."""
    metrics = {}
    for line in lines:
        match = UPSTREAM.search(line)
        if match:
            op, mean, stddev = match.groups()
            metrics[op + "_mean_us"] = float(mean)
            metrics[op + "_sd_us"] = float(stddev)
    return metrics


def parse_console(path):
    """Yield (attributes, metrics) for each finished run in a console log."""
    attrs, lines = None, []
    with open(path, errors="replace") as log:
        for line in log:
            line = line.rstrip("\r\n")
            start, end = RUN.match(line), END.match(line)
            if start:
                attrs = dict(word.split("=", 1) for word in start.group(1).split())
                lines = []
            elif end and attrs is not None:
                if end.group(1) == "0":
                    yield attrs, parse_run(lines)
                attrs = None
            elif attrs is not None:
                lines.append(line)


def load(kernel_dir):
    """{(mode, granule, threads): {domain, metrics...}} for one kernel."""
    runs = {}
    for mode in MODES:
        path = os.path.join(kernel_dir, mode + ".log")
        if not os.path.exists(path):
            continue
        for attrs, metrics in parse_console(path):
            key = (mode, int(attrs["granule"]), int(attrs["threads"]))
            runs[key] = dict(metrics, domain=attrs.get("domain", "?"))
    return runs


def ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


def rows(baseline, patched):
    for key in sorted(set(baseline) | set(patched), key=lambda k: (MODES.index(k[0]), k[1], k[2])):
        mode, granule, threads = key
        b, p = baseline.get(key, {}), patched.get(key, {})
        direct = patched.get(("off", granule, threads), {})
        row = {"mode": mode, "domain": p.get("domain", b.get("domain")),
               "granule": granule, "threads": threads}
        for op in ("map", "unmap"):
            row["base_" + op] = b.get(op + "_mean_us")
            row["patched_" + op] = p.get(op + "_mean_us")
            row["ratio_" + op] = ratio(row["patched_" + op], row["base_" + op])
            row["vs_direct_" + op] = ratio(row["patched_" + op], direct.get(op + "_mean_us"))
        yield row


COLUMNS = [("mode", "mode", "<6"), ("domain", "domain", "<8"), ("granule", "pages", ">5"),
           ("threads", "thr", ">3"), ("base_map", "base map", ">8"), ("base_unmap", "unmap", ">6"),
           ("patched_map", "patched map", ">11"), ("patched_unmap", "unmap", ">6"),
           ("ratio_map", "p/b map", ">7"), ("ratio_unmap", "unmap", ">6"),
           ("vs_direct_map", "/direct map", ">11"), ("vs_direct_unmap", "unmap", ">6")]


def cell(value, fmt):
    return format("-" if value is None else value, fmt)


def print_table(table, accel):
    print(f"mean latency in us per operation; {accel}; ratio p/b = patched/baseline, "
          "/direct = patched over patched with the IOMMU off")
    print("  ".join(cell(title, fmt) for _, title, fmt in COLUMNS))
    for row in table:
        print("  ".join(cell(row[name], fmt) for name, _, fmt in COLUMNS))


def write_chart(table, path):
    """Baseline (dashed) against patched (solid) per mode, one thread."""
    data = path + ".dat"
    with open(data, "w") as out:
        for mode in MODES:
            picked = [r for r in table if r["mode"] == mode and r["threads"] == 1]
            for r in picked:
                out.write(f'{r["granule"]} {r["base_map"] or "NaN"} {r["patched_map"] or "NaN"} '
                          f'{r["base_unmap"] or "NaN"} {r["patched_unmap"] or "NaN"}\n')
            out.write("\n\n")
    present = [m for m in MODES if any(r["mode"] == m and r["threads"] == 1 for r in table)]
    plots = []
    for col, what in ((2, "map"), (4, "unmap")):
        lines = []
        for index, mode in enumerate(present):
            lines.append(f'"{data}" index {MODES.index(mode)} using 1:{col} with linespoints '
                         f'dt 2 lc {index + 1} title "{mode} baseline"')
            lines.append(f'"{data}" index {MODES.index(mode)} using 1:{col + 1} with linespoints '
                         f'dt 1 lc {index + 1} title "{mode} patched"')
        plots.append(f'set title "{what}, 1 thread"\nplot ' + ", ".join(lines))
    script = "set terminal png size 1200,500\n"
    script += (f'set output "{path}"\nset multiplot layout 1,2\nset logscale xy\n'
               'set xlabel "granule (pages)"\nset ylabel "us per operation"\n'
               'set key top left\n' + "\n".join(plots) + "\nunset multiplot\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(data)


def main():
    results, baseline_dir, patched_dir, accel = sys.argv[1:5]
    table = list(rows(load(baseline_dir), load(patched_dir)))
    if not table:
        sys.exit("report: no finished benchmark runs in " + baseline_dir + " or " + patched_dir)
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "bench.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    with open(os.path.join(results, "bench.json"), "w") as out:
        json.dump({"accelerator": accel, "unit": "us", "runs": table}, out, indent=1)
    print_table(table, accel)
    try:
        write_chart(table, os.path.join(results, "bench.png"))
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"report: no chart ({err})", file=sys.stderr)
    print(f"written: {results}/bench.csv, bench.json, bench.png")


if __name__ == "__main__":
    main()
