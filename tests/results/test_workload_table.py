#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/workload_table.py, the workloads' part of the report,
on the saved workload consoles of tests/bench/*/workloads/."""

import io
import json
import os
import shutil
import tempfile
import unittest
from contextlib import redirect_stdout

import wbtest
import protocol
import report
import workload_table


def load(kernel_dir, problems=None):
    return workload_table.load(kernel_dir, report.console_objects,
                               [] if problems is None else problems)


class FixturesTest(unittest.TestCase):

    def test_rows_of_each_case(self):
        for case in ("workloads", "workload-failed"):
            with self.subTest(case=case):
                top = os.path.join(wbtest.BENCH, case)
                rows = workload_table.rows(load(os.path.join(top, "workloads", "baseline")),
                                           load(os.path.join(top, "workloads", "patched")))
                self.assertEqual(wbtest.as_csv(rows), wbtest.read_csv(
                    os.path.join(top, "expected-workloads.csv")))

    def test_failed_workload_says_why(self):
        top = os.path.join(wbtest.BENCH, "workload-failed", "workloads")
        rows = workload_table.rows(load(os.path.join(top, "baseline")),
                                   load(os.path.join(top, "patched")))
        failed = {(r["workload"], r["mode"]): r["failed"] for r in rows if r["failed"]}
        self.assertIn("the link of eth0 or eth1 stays down", " ".join(failed.values()))

    def test_print_rows(self):
        top = os.path.join(wbtest.BENCH, "workloads", "workloads")
        rows = list(workload_table.rows(load(os.path.join(top, "baseline")),
                                        load(os.path.join(top, "patched"))))
        out = io.StringIO()
        with redirect_stdout(out):
            workload_table.print_rows(rows)
        lines = out.getvalue().splitlines()
        direct, lazy = protocol.MODE_DIRECT, protocol.MODE_LAZY
        self.assertIn(f"goal (patched, 64 B): {lazy} >= 0.9x {direct}, {protocol.MODE_STRICT} "
                      f">= 0.75x {direct}, {protocol.MODE_CM} >= 0.9x {lazy}", lines[0])
        self.assertEqual(lines[1].split(), ["workload", "metric", "mode", "baseline", "/off",
                                            "patched", "/off", "p/b", "goal"])
        self.assertEqual(len(lines), 2 + len(rows) + 1)


class UnitTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def console(self, name, *objects):
        with open(os.path.join(self.dir, name), "w") as out:
            for obj in objects:
                out.write("    # " + json.dumps(obj) + "\n")

    def test_metrics_from_members(self):
        metrics = workload_table.metrics
        self.assertEqual(metrics([{"failed": "link down"}, {"tx_pps": 1, "rx_pps": 1}]),
                         ("tx_pps", "rx_pps"))
        self.assertEqual(metrics([{"iops": 3}]), ("iops",))
        self.assertEqual(metrics([{"skipped": "not asked"}]), (None,))

    def test_goals(self):
        values = {protocol.MODE_DIRECT: 100, protocol.MODE_LAZY: 90, protocol.MODE_STRICT: 74,
                  protocol.MODE_CM: 80}
        goal = workload_table.goal
        self.assertEqual(goal(64, protocol.MODE_LAZY, values), "met")
        self.assertEqual(goal(64, protocol.MODE_STRICT, values), "missed")
        self.assertEqual(goal(64, protocol.MODE_CM, values), "missed")
        self.assertIsNone(goal(64, protocol.MODE_DIRECT, values))
        self.assertIsNone(goal(1500, protocol.MODE_LAZY, values))
        self.assertIsNone(goal(None, protocol.MODE_LAZY, values))
        self.assertIsNone(goal(64, protocol.MODE_LAZY, {}))

    def test_kind_comes_from_members_not_the_name(self):
        """A workload's rates and its goal's frame size are the members
        its objects carry: a name that says "pktgen" or ends in " 64 B"
        (or does not) decides nothing. Fails under the old rule, which
        took tx/rx rates for any name holding "pktgen" and judged the
        goal on names ending in " 64 B"."""
        runs = {}
        for mode, rate in ((protocol.MODE_DIRECT, 100), (protocol.MODE_LAZY, 95)):
            runs[("flood over e1000e, small frames", mode)] = {
                protocol.KIND_WORKLOAD: "flood over e1000e, small frames", "size": 64,
                "tx_pps": rate, "rx_pps": rate}
            runs[("reads after pktgen 64 B", mode)] = {
                protocol.KIND_WORKLOAD: "reads after pktgen 64 B", "iops": rate}
        rows = {(r["workload"], r["metric"], r["mode"]): r
                for r in workload_table.rows(runs, runs)}
        self.assertEqual(sorted({(w, m) for w, m, _ in rows}),
                         [("flood over e1000e, small frames", "rx_pps"),
                          ("flood over e1000e, small frames", "tx_pps"),
                          ("reads after pktgen 64 B", "iops")])
        self.assertEqual(rows[("flood over e1000e, small frames", "tx_pps",
                               protocol.MODE_LAZY)]["goal"], "met")
        self.assertIsNone(rows[("reads after pktgen 64 B", "iops", protocol.MODE_LAZY)]["goal"])

    def test_planned_and_never_reported_is_failed(self):
        self.console(f"{protocol.MODE_LAZY}.log", {protocol.KIND_PLAN: ["a pktgen 64 B", "b"]},
                     {protocol.KIND_WORKLOAD: "a pktgen 64 B", "tx_pps": 5, "rx_pps": 5})
        found = load(self.dir)
        self.assertEqual(found[("b", protocol.MODE_LAZY)]["failed"],
                         "no result in the console (it ends before the workload)")
        self.assertEqual(found[("a pktgen 64 B", protocol.MODE_LAZY)]["tx_pps"], 5)

    def test_no_plan_and_no_console_are_problems(self):
        problems = []
        self.console(f"{protocol.MODE_DIRECT}.log")
        load(self.dir, problems)
        load(os.path.join(self.dir, "none"), problems)
        self.assertEqual(len(problems), 2)
        self.assertIn("no workload plan", problems[0])
        self.assertIn("no workload console", problems[1])

    def test_unknown_mode_is_an_error(self):
        self.console("passthrough.log")
        with self.assertRaises(SystemExit):
            load(self.dir)

    def test_skipped_on_both_is_no_failure(self):
        skipped = {("n", protocol.MODE_LAZY): {"skipped": "not asked"}}
        rows = list(workload_table.rows(skipped, skipped))
        self.assertEqual([(r["failed"], r["goal"]) for r in rows], [(None, "skipped")])

    def test_missing_on_one_kernel_fails(self):
        rows = list(workload_table.rows({("n", protocol.MODE_LAZY): {"iops": 3}}, {}))
        self.assertEqual(rows[0]["failed"], "patched: no result in the console")


class RenamedTest(unittest.TestCase):

    def test_renamed_modes_keep_goals_and_ratios(self):
        renames = {"WB_MODE_DIRECT": "none", "WB_MODE_LAZY": "fq"}
        renamed = wbtest.Renamed(renames)
        self.addCleanup(renamed.close)
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        case = os.path.join(wbtest.BENCH, "workloads")
        status, output = wbtest.run_report(renamed.copy_tree(case), out,
                                           protocol=renamed.protocol)
        self.assertEqual(status, 0, output)
        new = {renamed.old[name]: value for name, value in renames.items()}
        expected = wbtest.read_csv(os.path.join(case, "expected-workloads.csv"))
        for row in expected:
            row["mode"] = new.get(row["mode"], row["mode"])
        self.assertEqual(wbtest.read_csv(os.path.join(out, "workloads.csv")), expected)
        self.assertIn("fq >= 0.9x none", output)


if __name__ == "__main__":
    unittest.main()
