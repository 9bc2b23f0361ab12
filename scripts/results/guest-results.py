#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record the tests of one 'make check' guest boot.

Usage: guest-results.py [--no-kunit] <kunit dir> <console log> <label> <results>

<kunit dir> is a directory holding tools/testing/kunit: a kernel tree, or
Linux 7.3's KUnit tool alone as the Makefile extracts it from the source
tarball (build/kunit-tool), so that saved consoles parse without a tree.
The console holds two KTAP documents, both parsed by that kunit.py parse
(tools/testing/kunit/kunit.py): the built-in KUnit suites' as the
kernel boots (not with --no-kunit), then the guest job's (guest/init),
which starts with its job marker line and ends with its end marker and
status (WB_JOB_MARKER and WB_END_MARKER of guest/protocol.sh).
Each test case of either becomes one result. The job's document must be
complete (every planned test reported) and reach its end line: a guest
that hung, crashed or was killed fails. wb_dma_unmap's count of stale-IOVA
faults is one result more, and any kernel warning, BUG, oops, lockdep,
KASAN, kmemleak or DMA-API debug report in the console fails.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import protocol


def record(results, status, name, detail=""):
    """One result: a name that stays the same from run to run, and what
    varies (counts, where to look) as its detail, after " # "."""
    if "#" in name:
        sys.exit(f"a result's name may not hold '#' (KTAP cuts it there): {name}")
    with open(results, "a") as out:
        out.write(f"{status} {name}" + (f" # {detail}" if detail else "") + "\n")
    print(f"{status}: {name}" + (f" ({detail})" if detail else ""))


def kunit_cases(group, prefix=""):
    """Yield (name, status) for every test case in kunit.py's JSON. Tests
    the document planned but never reported have no name: they are the
    last ones, named by their number."""
    name = group["name"] if prefix or group["name"] != "KUnit Test Group" else ""
    path = f"{prefix}.{name}" if prefix and name else (name or prefix)
    cases = group.get("test_cases", [])
    number = len(group.get("sub_groups", [])) + sum(1 for case in cases if case["name"])
    for case in cases:
        if not case["name"]:
            number += 1
        case_name = case["name"] or f"test {number}, planned, never reported"
        yield (f"{path}.{case_name}" if path else case_name), case["status"]
    for sub in group.get("sub_groups", []):
        yield from kunit_cases(sub, path)


# The guest job's document starts with a version line and the line naming
# the job; kernel messages may come between them, or run into the version
# line. The job line decides where the document starts.
JOB_LINE = re.compile("^" + re.escape(protocol.JOB_MARKER), re.M)
END_LINE = re.compile("^" + re.escape(protocol.END_MARKER) + r"(\d+)", re.M)
VERSION_LINE = re.compile(r"^K?TAP version \d+$", re.M)
KTAP_LINE = re.compile(r"^\s*(ok |not ok |1\.\.|# Subtest:|K?TAP version)", re.M)


def split_console(text):
    """The console before the guest job (the kernel's boot, with the
    built-in suites' KTAP) and the job's document, or None: a version line
    of its own and the text from the job line on."""
    job = JOB_LINE.search(text)
    if not job:
        return text, None
    boot = text[:job.start()]
    # The job's version line ends the boot part, unless something of KTAP
    # comes after it (then it belongs to the built-in suites).
    versions = list(VERSION_LINE.finditer(boot))
    if versions and not KTAP_LINE.search(boot, versions[-1].end()):
        boot = boot[:versions[-1].start()]
    return boot, "TAP version 13\n" + text[job.start():]


def kunit_script(kunit_dir):
    """kunit.py of <kunit dir> (a tree or the extracted tool); a directory
    without one is an error of the caller, not a console without results."""
    kunit = os.path.join(kunit_dir, "tools/testing/kunit/kunit.py")
    if not os.path.isfile(kunit):
        sys.exit(f"guest-results.py: {kunit_dir} holds no tools/testing/kunit/kunit.py "
                 "(give a kernel tree or the extracted KUnit tool)")
    return kunit


def kunit_parse(kunit_dir, text):
    """kunit.py parse's JSON of one KTAP document, and its summary line."""
    kunit = kunit_script(kunit_dir)
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        run = subprocess.run([sys.executable, kunit, "parse", "--json=" + tmp.name],
                             input=text, capture_output=True, text=True)
        summary = [line for line in run.stdout.splitlines() if "Testing complete" in line]
        try:
            with open(tmp.name) as data:
                return json.load(data), summary[-1].strip() if summary else ""
        except (OSError, ValueError):
            print(run.stdout[-2000:] + run.stderr[-2000:])
            return None, ""


STATUS = {"PASS": "PASS", "SKIP": "SKIP"}


def record_kunit(kunit_dir, text, label, results):
    """The built-in suites, from the console up to the guest's job."""
    parsed, summary = kunit_parse(kunit_dir, text)
    cases = list(kunit_cases(parsed)) if parsed else []
    if not cases:
        record(results, "FAIL", f"kunit {label}", "no KUnit results in the console")
        return
    for name, status in cases:
        record(results, STATUS.get(status, "FAIL"), f"kunit {label} {name}")
    if summary:
        print("   ", summary)


def record_job(kunit_dir, document, label, results):
    """The guest job's document: one result per test, one for its being
    complete, one for its end line; and one failure if the job failed
    where no test case shows it (a step's own "not ok")."""
    parsed, summary = kunit_parse(kunit_dir, document)
    statuses = [STATUS.get(status, "FAIL") for _, status in kunit_cases(parsed)] if parsed else []
    for (name, _), status in zip(kunit_cases(parsed) if parsed else [], statuses):
        record(results, status, f"{label} {name}")
    errors = parsed["misc"]["errors"] if parsed else 1
    record(results, "FAIL" if errors else "PASS", f"the guest job's KTAP on {label} is complete",
           f"{errors} errors: see kunit.py parse" if errors else "")
    ended = END_LINE.search(document)
    record(results, "PASS" if ended else "FAIL", f"the guest job on {label} ran to its end",
           f"rc={ended.group(1)}" if ended else
           f"the console stops before '{protocol.END_MARKER}'")
    if ended and ended.group(1) != "0" and "FAIL" not in statuses:
        record(results, "FAIL", f"the guest job on {label} fails only where a test case says so",
               f"rc={ended.group(1)} with every case passed: a step failed on its own")
    if summary:
        print("   ", summary)


# What the kernel prints when something is wrong: WARN*() and lockdep
# ("WARNING:"), BUG*() and KASAN ("BUG:"), oopses, kmemleak's and the DMA
# API debugging's reports.
KERNEL_REPORT = re.compile(r"WARNING:|BUG:|Oops|unreferenced object 0x|DMA-API: ")
# What dma-debug says at boot when it works, not a report
DMA_DEBUG_BANNER = re.compile(r"DMA-API: (preallocated \d+ debug entries|debugging enabled by kernel config)")



def kernel_reports(console):
    """The console's kernel reports: no test provokes one on purpose."""
    return [line.rstrip() for line in console
            if KERNEL_REPORT.search(line) and not DMA_DEBUG_BANNER.search(line)]


def record_kernel_reports(log, label, results):
    """One result: the console holds no kernel report; the first few shown."""
    with open(log, errors="replace") as console:
        reports = kernel_reports(console)
    for line in reports[:10]:
        print(f"    {line}")
    status = "FAIL" if reports else "PASS"
    record(results, status, f"no kernel warning, BUG, oops or leak in the {label} console",
           f"{len(reports)} lines" if reports else "")


# The line of wb_dma_unmap.unmapped_iova_faults (guest/protocol.sh)
FAULTS = protocol.FAULTS


def record_stale_faults(ktap, label, results):
    """wb_dma_unmap's counts (from the module's KTAP), as a result of their own."""
    for line in ktap.splitlines():
        match = FAULTS.search(line)
        if match:
            mode, seen, expected, touched = match.groups()
            status = "PASS" if seen == expected and touched == "0" else "FAIL"
            record(results, status, f"DMA to unmapped IOVAs on {label} ({mode}) faults and "
                   "lands nowhere", f"{seen} of {expected} faulted, {touched} bytes touched")


def main():
    args = sys.argv[1:]
    kunit = "--no-kunit" not in args
    kunit_dir, log, label, results = [a for a in args if a != "--no-kunit"]
    with open(log, errors="replace") as console:
        boot, job = split_console(console.read().replace("\r", ""))
    if kunit:
        record_kunit(kunit_dir, boot, label, results)
    if job is not None:
        record_job(kunit_dir, job, label, results)
        record_stale_faults(job, label, results)
    elif "wb.job=" in boot:
        record(results, "FAIL", f"the guest job on {label} ran to its end",
               "the console stops before the job starts")
    record_kernel_reports(log, label, results)


if __name__ == "__main__":
    main()
