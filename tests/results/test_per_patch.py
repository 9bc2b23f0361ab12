#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/per_patch.py, make per-patch's table (and make
per-patch-workloads'), on the consoles of tests/bench/ taken as two kernels of
a series."""

import os
import unittest

import wbtest
import protocol


def per_patch(top, *names, protocol=None):
    """per_patch.py's output and exit line, as expected-per-patch.txt has them."""
    status, output = wbtest.run_script("per_patch.py", top, *names, protocol=protocol)
    return output + f"exit: {status}\n"


class FixturesTest(unittest.TestCase):

    def test_each_case(self):
        for case in wbtest.bench_cases():
            with self.subTest(case=case):
                top = os.path.join(wbtest.BENCH, case)
                self.assertEqual(per_patch(top, "baseline", "patched"),
                                 wbtest.read(os.path.join(top, "expected-per-patch.txt")))

    def test_each_p50_against_the_one_before(self):
        top = os.path.join(wbtest.BENCH, "good")
        lines = per_patch(top, "baseline", "patched", "baseline").splitlines()
        row = next(line for line in lines
                   if line.startswith(protocol.MODE_LAZY + " ") and " map " in line)
        cells = row.split()
        # baseline, patched, baseline again: no ratio first, then one each
        self.assertEqual(len([c for c in cells if c.startswith("x")]), 2)

    def test_a_missing_kernel_fails(self):
        top = os.path.join(wbtest.BENCH, "good")
        output = per_patch(top, "baseline", "none")
        self.assertTrue(output.endswith("exit: 1\n"))
        self.assertIn(f"FAILED none mode={protocol.MODE_DIRECT} map=single granule=1", output)


def workload_cases():
    """The cases with workload consoles (<case>/workloads/)."""
    return [case for case in wbtest.bench_cases()
            if os.path.isdir(os.path.join(wbtest.BENCH, case, "workloads"))]


class WorkloadsTest(unittest.TestCase):
    """--workloads, make per-patch-workloads' table."""

    def test_each_case(self):
        self.assertLessEqual({"workload-failed", "workloads"}, set(workload_cases()))
        for case in workload_cases():
            with self.subTest(case=case):
                top = os.path.join(wbtest.BENCH, case)
                self.assertEqual(
                    per_patch("--workloads", os.path.join(top, "workloads"), "baseline", "patched"),
                    wbtest.read(os.path.join(top, "expected-per-patch-workloads.txt")))

    def test_each_rate_against_the_one_before(self):
        top = os.path.join(wbtest.BENCH, "workloads", "workloads")
        lines = per_patch("--workloads", top, "baseline", "patched", "baseline").splitlines()
        row = next(line for line in lines if line.startswith("e1000e pktgen 64 B ")
                   and f" {protocol.MODE_LAZY} " in line)
        # 70086, then 86828 (x1.24 of it), then 70086 again (x0.81 of that)
        self.assertEqual([c for c in row.split() if c.startswith("x")], ["x1.24", "x0.81"])

    def test_a_failed_workload_fails_once_per_kernel_and_mode(self):
        top = os.path.join(wbtest.BENCH, "workload-failed", "workloads")
        output = per_patch("--workloads", top, "baseline", "patched")
        failed = [line for line in output.splitlines() if line.startswith("FAILED")]
        self.assertIn(f"FAILED patched workload=e1000e pktgen 64 B mode={protocol.MODE_LAZY}: "
                      "the link of eth0 or eth1 stays down", failed)
        self.assertEqual(len(failed), len(set(failed)))
        self.assertTrue(output.endswith("exit: 1\n"))


class RenamedTest(unittest.TestCase):

    def test_renamed_mode(self):
        renamed = wbtest.Renamed({"WB_MODE_LAZY": "fq"})
        self.addCleanup(renamed.close)
        top = renamed.copy_tree(os.path.join(wbtest.BENCH, "good"))
        expected = wbtest.read(os.path.join(wbtest.BENCH, "good", "expected-per-patch.txt"))
        lazy = f"{protocol.MODE_LAZY:6} "
        expected = "\n".join(f"{'fq':6} " + line[7:] if line.startswith(lazy) else line
                             for line in expected.split("\n"))
        self.assertEqual(per_patch(top, "baseline", "patched", protocol=renamed.protocol),
                         expected)

    def test_renamed_mode_in_the_workloads(self):
        renamed = wbtest.Renamed({"WB_MODE_LAZY": "lzy"})
        self.addCleanup(renamed.close)
        top = renamed.copy_tree(os.path.join(wbtest.BENCH, "workloads", "workloads"))
        lines = per_patch("--workloads", top, "baseline", "patched",
                          protocol=renamed.protocol).splitlines()
        self.assertTrue(lines[-1] == "exit: 0", lines[-3:])
        modes = {line[34:40].rstrip() for line in lines[3:-1]}
        self.assertIn("lzy", modes)
        self.assertNotIn(protocol.MODE_LAZY, modes)


if __name__ == "__main__":
    unittest.main()
