#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record the tests of one 'make check' guest boot.

Usage: guest-results.py [--no-kunit] <tree> <console log> <label> <results>

KUnit's KTAP is parsed by the tree's own tools/testing/kunit/kunit.py parse;
each test case becomes one result: the built-in suites' from the console
before the guest's init, the test modules' from between WB-KTAP markers.
The kselftest TAP between the guest's WB-KSELFTEST markers gives one result
per test; WB-MODULE and WB-RESOURCE lines one result each.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

TAP = re.compile(r"^(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP|TODO)?.*)?$")


def record(results, status, name):
    with open(results, "a") as out:
        out.write(f"{status} {name}\n")
    print(f"{status}: {name}")


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
    """The test modules' KTAP, which the guest printed between WB-KTAP markers."""
    ktap, inside = [], False
    with open(log, errors="replace") as console:
        for line in console:
            if line.startswith("WB-KTAP-BEGIN"):
                inside = True
            elif line.startswith("WB-KTAP-END"):
                inside = False
            elif inside:
                ktap.append(line)
    return "".join(ktap)


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
        record(results, "FAIL", f"kunit {label}: no KUnit results in {where}")
        return
    for name, status in cases:
        status = {"PASS": "PASS", "SKIP": "SKIP"}.get(status, "FAIL")
        record(results, status, f"kunit {label} {name}")
    if summary:
        print("   ", summary[-1].strip())


PLAN = re.compile(r"^1\.\.(\d+)")
EXIT = re.compile(r"^# exit=(\d+)")


def record_kselftest(log, label, results):
    """One result per TAP line; a short count or a bad exit is one failure."""
    inside, found, planned, exit_status = False, 0, None, 0
    with open(log, errors="replace") as console:
        for line in console:
            line = line.rstrip("\r\n")
            if line.startswith("WB-KSELFTEST-BEGIN"):
                inside = True
            elif line.startswith("WB-KSELFTEST-END"):
                inside = False
            elif inside and PLAN.match(line) and planned is None:
                planned = int(PLAN.match(line).group(1))
            elif inside and EXIT.match(line):
                exit_status = int(EXIT.match(line).group(1))
            elif inside:
                match = TAP.match(line)
                if match:
                    found += 1
                    verdict, name, directive = match.groups()
                    status = "SKIP" if directive == "SKIP" else (
                        "PASS" if verdict == "ok" else "FAIL")
                    record(results, status, f"kselftest {label} {name}")
    if not found and planned != 0:
        record(results, "FAIL", f"kselftest {label}: no TAP results in the console")
    elif planned is not None and found < planned:
        record(results, "FAIL", f"kselftest {label}: {found} of {planned} planned results")
    if exit_status not in (0, 4):
        record(results, "FAIL", f"kselftest {label}: exit status {exit_status}")


def record_compat(log, label, results):
    """Linux 6.12's unmodified tool against this kernel, where the guest ran it."""
    with open(log, errors="replace") as console:
        for line in console:
            match = re.match(r"^WB-COMPAT rc=(\d+)", line)
            if match:
                status = "PASS" if match.group(1) == "0" else "FAIL"
                record(results, status, f"Linux 6.12's dma_map_benchmark binary on {label}")


def record_markers(log, label, results):
    """A test module's load and each resource-mode run of the benchmark."""
    with open(log, errors="replace") as console:
        for line in console:
            match = re.match(r"^WB-MODULE (\S+) rc=(\d+)", line)
            if match:
                status = "PASS" if match.group(2) == "0" else "FAIL"
                record(results, status, f"load test module {match.group(1)} on {label}")
            match = re.match(r"^WB-RESOURCE attrs=(\S+) rc=(\d+)", line)
            if match:
                status = "PASS" if match.group(2) == "0" else "FAIL"
                record(results, status, "dma_map_benchmark resource mode on ivshmem's "
                       f"prefetchable BAR2, attrs={match.group(1)}, on {label}")


def main():
    args = sys.argv[1:]
    kunit = "--no-kunit" not in args
    tree, log, label, results = [a for a in args if a != "--no-kunit"]
    if kunit:
        record_kunit(tree, boot_console(log), label, results)
        ktap = module_ktap(log)
        if ktap:
            record_kunit(tree, ktap, label, results, "the test modules' KTAP")
    record_markers(log, label, results)
    record_kselftest(log, label, results)
    record_compat(log, label, results)


if __name__ == "__main__":
    main()
