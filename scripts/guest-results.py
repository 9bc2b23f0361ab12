#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record the tests of one 'make check' guest boot.

Usage: guest-results.py [--no-kunit] <tree> <console log> <label> <results>

KUnit's KTAP is parsed by the tree's own tools/testing/kunit/kunit.py parse;
each test case becomes one result: the built-in suites' from the console
before the guest's init (not with --no-kunit), the test modules' from
between WB-KTAP markers. wb_dma_unmap's count of stale-IOVA faults is one
result more, with the numbers in its name. Any kernel warning, BUG, oops,
lockdep, KASAN, kmemleak or DMA-API debug report in the console fails.
The tool runs' TAP between the guest's WB-TOOL markers gives one result per
test; WB-MODULE and WB-HOTPLUG lines one result each. A console cut short
fails: a module's KTAP or a tool run without its end marker, a guest job
without WB-END (a guest that hung, crashed or was killed).
"""

import json
import os
import re
import subprocess
import sys
import tempfile

SKIP_ONLY = re.compile(r"^ok \d+ # SKIP (.*)$")
TAP = re.compile(r"^(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP|TODO)?.*)?$")


def record(results, status, name, detail=""):
    """One result: a name that stays the same from run to run, and what
    varies (counts, where to look) as its detail, after " # "."""
    if "#" in name:
        sys.exit(f"a result's name may not hold '#' (KTAP cuts it there): {name}")
    with open(results, "a") as out:
        out.write(f"{status} {name}" + (f" # {detail}" if detail else "") + "\n")
    print(f"{status}: {name}" + (f" ({detail})" if detail else ""))


def kunit_cases(group, prefix=""):
    """Yield (name, status) for every test case in kunit.py's JSON."""
    name = group["name"] if prefix or group["name"] != "KUnit Test Group" else ""
    path = f"{prefix}.{name}" if prefix and name else (name or prefix)
    for case in group.get("test_cases", []):
        yield (f"{path}.{case['name']}" if path else case["name"]), case["status"]
    for sub in group.get("sub_groups", []):
        yield from kunit_cases(sub, path)


def boot_console(log):
    """The console up to the guest's init: KUnit's built-in suites run before it."""
    with open(log, errors="replace") as console:
        return console.read().split("WB-BEGIN", 1)[0]


def module_ktap(log):
    """The test modules' KTAP documents, one per suite, which the guest
    printed between WB-KTAP markers, and the suites whose block the console
    cut short."""
    blocks, cut, inside = [], [], None
    with open(log, errors="replace") as console:
        for line in console:
            if line.startswith("WB-KTAP-BEGIN"):
                inside = line.split(maxsplit=1)[-1].strip()
                blocks.append("")
            elif line.startswith("WB-KTAP-END"):
                inside = None
            elif inside:
                blocks[-1] += line
    if inside:
        cut.append(inside)
    return blocks, cut


def record_kunit(tree, text, label, results, where="the console"):
    kunit = os.path.join(tree, "tools/testing/kunit/kunit.py")
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        run = subprocess.run([sys.executable, kunit, "parse", "--json=" + tmp.name],
                             input=text, capture_output=True, text=True)
        summary = [line for line in run.stdout.splitlines() if "Testing complete" in line]
        try:
            with open(tmp.name) as data:
                cases = list(kunit_cases(json.load(data)))
        except (OSError, ValueError):
            cases = []
    if not cases:
        print(run.stdout[-2000:] + run.stderr[-2000:])
        record(results, "FAIL", f"kunit {label}", f"no KUnit results in {where}")
        return
    for name, status in cases:
        status = {"PASS": "PASS", "SKIP": "SKIP"}.get(status, "FAIL")
        record(results, status, f"kunit {label} {name}")
    if summary:
        print("   ", summary[-1].strip())


PLAN = re.compile(r"^1\.\.(\d+)")
EXIT = re.compile(r"^# exit=(\d+)")


def record_tap(log, label, results, marker="WB-TOOL", required=True):
    """One result per TAP line between <marker>-BEGIN and <marker>-END; a
    short count or a bad exit is one failure, and so is no TAP at all when
    <required>."""
    inside, found, planned, exit_status = False, 0, None, 0
    with open(log, errors="replace") as console:
        for line in console:
            line = line.rstrip("\r\n")
            if line.startswith(marker + "-BEGIN"):
                inside = True
            elif line.startswith(marker + "-END"):
                inside = False
            elif inside and PLAN.match(line) and planned is None:
                planned = int(PLAN.match(line).group(1))
            elif inside and EXIT.match(line):
                exit_status = int(EXIT.match(line).group(1))
            elif inside and SKIP_ONLY.match(line):
                # "ok N # SKIP <reason>": the reason names it
                found += 1
                record(results, "SKIP", f"tool {label} {SKIP_ONLY.match(line).group(1)}")
            elif inside:
                match = TAP.match(line)
                if match:
                    found += 1
                    verdict, name, directive = match.groups()
                    status = "SKIP" if directive == "SKIP" else (
                        "PASS" if verdict == "ok" else "FAIL")
                    record(results, status, f"tool {label} {name}")
    if not found and planned is None and not required:
        return
    if inside:
        record(results, "FAIL", f"tool {label}: every run ended", "the console stops inside one")
    if not found and planned != 0:
        record(results, "FAIL", f"tool {label}: TAP in the console", "none")
    elif planned is not None and found < planned:
        record(results, "FAIL", f"tool {label}: every planned result",
               f"{found} of {planned}")
    if exit_status not in (0, 4):
        record(results, "FAIL", f"tool {label}: exit status", str(exit_status))


def record_runs(log, label, results):
    """The benchmark matrix's runs (the debug kernel's boots), all of them as one result."""
    with open(log, errors="replace") as console:
        ends = re.findall(r"^WB-(?:RUN|COUNT)-END rc=(\d+)", console.read(), re.M)
    if ends:
        good = ends.count("0")
        record(results, "PASS" if good == len(ends) else "FAIL",
               f"benchmark matrix on {label}", f"{good} of {len(ends)} runs succeeded")


def record_markers(log, label, results):
    """A test module's load, the CPU hotplug run."""
    with open(log, errors="replace") as console:
        for line in console:
            match = re.match(r"^WB-HOTPLUG rc=(\S+)(.*)", line)
            if match:
                status = {"0": "PASS", "skip": "SKIP"}.get(match.group(1), "FAIL")
                if "offline=ok online=ok" not in match.group(2) and status == "PASS":
                    status = "FAIL"
                record(results, status, f"CPU 1 offline and back during a 2-thread "
                       f"256-page run on {label}", f"rc={match.group(1)}{match.group(2).rstrip()}")
            match = re.match(r"^WB-MODULE (\S+) rc=(\d+)", line)
            if match:
                status = "PASS" if match.group(2) == "0" else "FAIL"
                record(results, status, f"load test module {match.group(1)} on {label}")


# What the kernel prints when something is wrong: WARN*() and lockdep
# ("WARNING:"), BUG*() and KASAN ("BUG:"), oopses, kmemleak's and the DMA
# API debugging's reports.
KERNEL_REPORT = re.compile(r"WARNING:|BUG:|Oops|unreferenced object 0x|DMA-API: ")
# What dma-debug says at boot when it works, not a report
DMA_DEBUG_BANNER = re.compile(r"DMA-API: (preallocated \d+ debug entries|debugging enabled by kernel config)")


def record_kernel_reports(log, label, results):
    """One result: the console holds no kernel report; the first few shown."""
    with open(log, errors="replace") as console:
        reports = [line.rstrip() for line in console
                   if KERNEL_REPORT.search(line) and not DMA_DEBUG_BANNER.search(line)]
    for line in reports[:10]:
        print(f"    {line}")
    status = "FAIL" if reports else "PASS"
    record(results, status, f"no kernel warning, BUG, oops or leak in the {label} console",
           f"{len(reports)} lines" if reports else "")


FAULTS = re.compile(r"# unmapped_iova_faults: (\w+): stale-IOVA faults seen (\d+) of (\d+) "
                    r"expected, (\d+) bytes touched")


def record_stale_faults(ktap, label, results):
    """wb_dma_unmap's counts (from the module's KTAP), as a result of their own."""
    for line in ktap.splitlines():
        match = FAULTS.search(line)
        if match:
            mode, seen, expected, touched = match.groups()
            status = "PASS" if seen == expected and touched == "0" else "FAIL"
            record(results, status, f"DMA to unmapped IOVAs on {label} ({mode}) faults and "
                   "lands nowhere", f"{seen} of {expected} faulted, {touched} bytes touched")


def record_job_end(log, label, results):
    """A guest whose job started must have reached its end: a console that
    stops before WB-END is a guest that hung, crashed or was killed."""
    with open(log, errors="replace") as console:
        text = console.read()
    if "\nWB-BEGIN " not in "\n" + text:
        return
    ended = re.search(r"^WB-END rc=(\d+)", text, re.M)
    record(results, "PASS" if ended else "FAIL", f"the guest job on {label} ran to its end",
           f"rc={ended.group(1)}" if ended else "the console stops before WB-END")


def main():
    args = sys.argv[1:]
    kunit = "--no-kunit" not in args
    tree, log, label, results = [a for a in args if a != "--no-kunit"]
    if kunit:
        record_kunit(tree, boot_console(log), label, results)
    # Each suite's document apart: kunit.py parse reads one per input.
    blocks, cut = module_ktap(log)
    for ktap in blocks:
        record_kunit(tree, ktap, label, results, "the test modules' KTAP")
        record_stale_faults(ktap, label, results)
    for suite in cut:
        record(results, "FAIL", f"test module KTAP on {label} complete", f"cut inside {suite}")
    record_markers(log, label, results)
    record_runs(log, label, results)
    # Only the check job runs the tools (not the unmap suite's boots).
    with open(log, errors="replace") as console:
        check_job = "WB-BEGIN job=check" in console.read()
    record_tap(log, label, results, required=check_job)
    record_kernel_reports(log, label, results)
    record_job_end(log, label, results)


if __name__ == "__main__":
    main()
