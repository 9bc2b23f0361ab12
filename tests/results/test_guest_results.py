#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/guest-results.py on the saved consoles of
tests/consoles/, without a kernel tree or the KUnit tool: kunit.py parse is
replaced by a stand-in, so the results checked here are those the script
finds itself (the job's end line, the stale-IOVA faults, kernel reports,
where the job's document starts); make check-parsers compares every
result with Linux 7.3's kunit.py parse."""

import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from io import StringIO

import wbtest
import protocol

guest_results = wbtest.script_module("guest-results")

# The results guest-results.py finds without kunit.py
OWN = ("ran to its end", "DMA to unmapped IOVAs", "no kernel warning")

# Runs guest-results.py's main() with a kunit.py parse that finds one
# passing case and no error: argv[1] the results file, the rest its own.
MAIN = """
import sys
sys.path.insert(0, sys.argv[1])
import wbtest
gr = wbtest.script_module("guest-results")
gr.kunit_parse = lambda tree, text: ({"name": "KUnit Test Group", "misc": {"errors": 0},
    "test_cases": [{"name": "a_case", "status": "PASS"}], "sub_groups": []}, "")
sys.argv = ["guest-results.py"] + sys.argv[2:]
gr.main()
"""


def own_results(console, args, protocol_file=None):
    """The results guest-results.py records itself for <console>."""
    with tempfile.NamedTemporaryFile("r", suffix=".results") as results:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("WB_PROTOCOL", None)
        if protocol_file:
            env["WB_PROTOCOL"] = protocol_file
        subprocess.run([sys.executable, "-c", MAIN, os.path.dirname(__file__),
                        *args[:-1], "no-tree", console, args[-1], results.name],
                       env=env, check=True, capture_output=True)
        return [line for line in results.read().splitlines() if any(o in line for o in OWN)]


def expected_own(name):
    return [line for line in wbtest.read(os.path.join(wbtest.CONSOLES, name + ".expected"))
            .splitlines() if any(o in line for o in OWN)]


def console_names():
    return sorted(f[:-4] for f in os.listdir(wbtest.CONSOLES) if f.endswith(".log"))


def console_args(name):
    return wbtest.read(os.path.join(wbtest.CONSOLES, name + ".args")).split()


class FixturesTest(unittest.TestCase):

    def test_own_results_of_each_console(self):
        for name in console_names():
            with self.subTest(console=name):
                self.assertEqual(own_results(os.path.join(wbtest.CONSOLES, name + ".log"),
                                             console_args(name)), expected_own(name))

    def test_renamed_markers(self):
        """The consoles of a guest speaking a protocol with other markers
        give the same results when protocol.sh says so."""
        renamed = wbtest.Renamed({"WB_END_MARKER": "# wb: job done rc=",
                                  "WB_JOB_MARKER": "# wb: starting job="})
        self.addCleanup(renamed.close)
        copy = renamed.copy_tree(wbtest.CONSOLES, "{old}")
        for name in console_names():
            with self.subTest(console=name):
                expected = [line.replace(protocol.END_MARKER, "# wb: job done rc=")
                            for line in expected_own(name)]
                self.assertEqual(own_results(os.path.join(copy, name + ".log"),
                                             console_args(name), renamed.protocol), expected)


class SplitTest(unittest.TestCase):

    def test_job_document_starts_at_the_job_line(self):
        text = ("[ 1.0] boot\nKTAP version 1\n1..1\nok 1 iova\nTAP version 13\n"
                f"{protocol.JOB_MARKER}check kernel=7.3\n1..1\nok 1 modules\n")
        boot, job = guest_results.split_console(text)
        self.assertEqual(boot, "[ 1.0] boot\nKTAP version 1\n1..1\nok 1 iova\n")
        self.assertEqual(job, f"TAP version 13\n{protocol.JOB_MARKER}check kernel=7.3\n"
                              "1..1\nok 1 modules\n")

    def test_no_job_line(self):
        self.assertEqual(guest_results.split_console("boot\n"), ("boot\n", None))


class KunitCasesTest(unittest.TestCase):

    def test_nested_names_and_unreported_cases(self):
        parsed = {"name": "KUnit Test Group", "test_cases": [], "sub_groups": [
            {"name": "modules", "sub_groups": [], "test_cases": [
                {"name": "first", "status": "PASS"}, {"name": "", "status": "FAILURE"}]}]}
        self.assertEqual(list(guest_results.kunit_cases(parsed)),
                         [("modules.first", "PASS"),
                          ("modules.test 2, planned, never reported", "FAILURE")])


class ReportsTest(unittest.TestCase):

    def test_every_report_counts_but_dma_debug_s_banner(self):
        console = ["WARNING: before\n", "a double unmap\n", "BUG: after\n",
                   "DMA-API: preallocated 65536 debug entries\n", "DMA-API: edu: leak\n"]
        self.assertEqual(guest_results.kernel_reports(console),
                         ["WARNING: before", "BUG: after", "DMA-API: edu: leak"])

    def test_stale_faults(self):
        with tempfile.NamedTemporaryFile("r") as results, redirect_stdout(StringIO()):
            guest_results.record_stale_faults(
                "    # unmapped_iova_faults: strict: stale-IOVA faults seen 1 of 2 expected, "
                "4 bytes touched\n", "arm64", results.name)
            self.assertEqual(results.read(),
                             "FAIL DMA to unmapped IOVAs on arm64 (strict) faults and lands "
                             "nowhere # 1 of 2 faulted, 4 bytes touched\n")

    def test_a_name_may_not_hold_a_hash(self):
        with self.assertRaises(SystemExit):
            guest_results.record(os.devnull, "PASS", "a # b")


if __name__ == "__main__":
    unittest.main()
