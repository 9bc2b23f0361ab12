#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/report.py (and its cost_model.py) on the saved
benchmark consoles of tests/bench/: the table, bench.csv, bench.json and
the exit status, the units that make a row, and a renamed mode, counter or
JSON kind in guest/protocol.sh, which the report must follow."""

import json
import os
import shutil
import tempfile
import unittest

import wbtest
import protocol

LAZY, STRICT = protocol.MODE_LAZY, protocol.MODE_STRICT
import report


def case_dir(case):
    return os.path.join(wbtest.BENCH, case)


class FixturesTest(unittest.TestCase):
    """Each tests/bench/<case>: report.py's bench.csv (and workloads.csv)
    and its exit status."""

    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        report.PROBLEMS.clear()

    def test_rows_of_each_case(self):
        for case in wbtest.bench_cases():
            with self.subTest(case=case):
                table = report.rows(report.load(os.path.join(case_dir(case), "baseline")),
                                    report.load(os.path.join(case_dir(case), "patched")))
                self.assertEqual(wbtest.as_csv(table),
                                 wbtest.read_csv(os.path.join(case_dir(case), "expected.csv")))

    def test_each_case_end_to_end(self):
        for case in wbtest.bench_cases():
            with self.subTest(case=case):
                status, output = wbtest.run_report(case_dir(case), self.out)
                self.assertEqual(str(status),
                                 wbtest.read(os.path.join(case_dir(case), "expected-status")).strip(),
                                 output)
                self.assertEqual(wbtest.read(os.path.join(self.out, "bench.csv")),
                                 wbtest.read(os.path.join(case_dir(case), "expected.csv")))
                if os.path.isdir(os.path.join(case_dir(case), "workloads")):
                    self.assertEqual(
                        wbtest.read(os.path.join(self.out, "workloads.csv")),
                        wbtest.read(os.path.join(case_dir(case), "expected-workloads.csv")))

    def test_bench_json_holds_the_csv_rows(self):
        status, output = wbtest.run_report(case_dir("workloads"), self.out)
        self.assertEqual(status, 0, output)
        with open(os.path.join(self.out, "bench.json")) as f:
            data = json.load(f)
        self.assertEqual(data["accelerator"], "tcg")
        self.assertEqual(data["unit"], "ns")
        self.assertEqual(wbtest.as_csv(data["runs"]), wbtest.read_csv(os.path.join(self.out, "bench.csv")))
        self.assertEqual(wbtest.as_csv(data["workloads"]),
                         wbtest.read_csv(os.path.join(self.out, "workloads.csv")))

    def test_failed_rows_are_named(self):
        status, output = wbtest.run_report(case_dir("failed"), self.out)
        self.assertEqual(status, 1)
        self.assertIn(f"FAILED mode={LAZY}", output)
        self.assertIn("trace events lost", output)

    def test_tables_are_printed(self):
        status, output = wbtest.run_report(case_dir("cm"), self.out)
        self.assertEqual(status, 0, output)
        self.assertIn("dma_map\n", output)
        self.assertIn(f"{protocol.COUNT_WAIT}/1k unmaps: baseline", output)
        self.assertIn("ESTIMATE, not a measurement", output)


def run(granule=1, **members):
    obj = {protocol.KIND_RUN: {"map": "single", "granule": granule, "threads": 1, "depth": 1},
           "rc": 0, "timed": {"ops": 1000, "map": {"mean_ns": 10, "p50_ns": 9, "p99_ns": 20},
                              "unmap": {"mean_ns": 5, "p50_ns": 4, "p99_ns": 8}}}
    obj.update(members)
    return obj


class RunEntryTest(unittest.TestCase):

    def test_metrics_of_a_timed_run(self):
        entry = report.run_entry(run(domain="DMA"), STRICT)
        self.assertEqual(entry, {"map_mean": 10, "map_p50": 9, "map_p99": 20, "unmap_mean": 5,
                                 "unmap_p50": 4, "unmap_p99": 8, "ops": 1000, "domain": "DMA"})

    def test_mainline_means_only(self):
        entry = report.run_entry(run(timed={"map": {"mean_ns": 7}, "unmap": {"mean_ns": 3}}),
                                 LAZY)
        self.assertEqual(entry, {"map_mean": 7, "unmap_mean": 3, "domain": None})

    def test_failures_say_why(self):
        self.assertEqual(report.run_entry(run(rc=2), LAZY), {"failed": "the run exited 2"})
        self.assertEqual(report.run_entry(run(timed=None), LAZY),
                         {"failed": "no result from the tool"})
        self.assertEqual(report.run_entry(run(skipped="no depth"), LAZY),
                         {"skipped": "no depth"})
        lost = report.run_entry(run(counted={protocol.COUNT_LOST: 3, "rc": 0}), LAZY)
        self.assertEqual(lost["failed"], "3 trace events lost")
        self.assertEqual(report.run_entry(run(counted={"rc": 1}), LAZY)["failed"],
                         "its counting run exited 1")

    def test_counted_per_thousand_and_per_page(self):
        counts = {protocol.COUNT_WAIT: 500, protocol.COUNT_ALLOC: 20,
                  protocol.COUNT_PAGES: 4000, protocol.COUNT_WHOLE: 2}
        self.assertEqual(report.counted(counts, STRICT, 1000, 4),
                         {"qi_per_1k_unmaps": 500.0, "alloc_iova_per_1k_maps": 20.0,
                          "inv_pages_per_page": 1.0, "whole_inv": 2,
                          "whole_per_1k_unmaps": 2.0})

    def test_caching_mode_leaves_out_the_map_side(self):
        counts = {protocol.COUNT_WAIT: 2000, protocol.COUNT_MAP_FLUSH: 1000,
                  protocol.COUNT_PAGES: 7000}
        # 1000 maps of 3 pages invalidate 1000 blocks of 4 pages
        got = report.counted(counts, protocol.MODE_CM, 1000, 3)
        self.assertEqual(got["qi_per_1k_unmaps"], 1000.0)
        self.assertEqual(got["inv_pages_per_page"], 1.0)
        self.assertEqual(report.counted(counts, protocol.MODE_STRICT, 1000, 3)["qi_per_1k_unmaps"],
                         2000.0)


class ConsoleTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        report.PROBLEMS.clear()
        self.addCleanup(report.PROBLEMS.clear)

    def console(self, name, *objects, extra=""):
        path = os.path.join(self.dir, name)
        with open(path, "w") as out:
            out.write(extra)
            for obj in objects:
                out.write("    # " + json.dumps(obj) + "\n")
        return path

    def test_a_run_the_console_lacks_is_failed(self):
        matrix = {protocol.KIND_MATRIX: {"maps": ["single"], "granules": [1, 16],
                                         "threads": [1], "depths": [1]}}
        runs = report.parse_console(self.console(f"{LAZY}.log", matrix, run(1)), LAZY)
        self.assertEqual(runs[(LAZY, "single", "16", "1", "1")],
                         {"failed": "no result in the console (it ends before the run)"})
        self.assertNotIn("failed", runs[(LAZY, "single", "1", "1", "1")])

    def test_a_console_without_matrix_is_a_problem(self):
        report.parse_console(self.console(f"{LAZY}.log", run(1)), LAZY)
        self.assertEqual(len(report.PROBLEMS), 1)
        self.assertIn("no benchmark matrix", report.PROBLEMS[0])

    def test_a_cut_object_is_a_problem(self):
        # a kernel message ran into the object
        path = self.console(f"{LAZY}.log", extra='    # {"run": {"map"[  1.2] eth0: up}\n')
        report.parse_console(path, LAZY)
        self.assertIn(f"{path}:1: not a JSON object", report.PROBLEMS)

    def test_load_refuses_a_mode_it_does_not_know(self):
        self.console(f"{LAZY}.log")
        self.console("nested.log")
        with self.assertRaises(SystemExit) as err:
            report.load(self.dir)
        self.assertIn("nested.log: IOMMU mode 'nested' is not one of WB_MODES",
                      str(err.exception))

    def test_smp_console_of_the_same_mode(self):
        matrix = {protocol.KIND_MATRIX: {"maps": ["single"], "granules": [1],
                                         "threads": [2], "depths": [1]}}
        self.console(f"{STRICT}-smp.log", matrix,
                     run(1, **{protocol.KIND_RUN: {"map": "single", "granule": 1, "threads": 2,
                                                   "depth": 1}}))
        self.assertEqual(list(report.load(self.dir)), [(STRICT, "single", "1", "2", "1")])

    def test_rows_in_protocol_order_against_direct(self):
        baseline = {(m, "single", "1", "1", "1"): {"map_p50": 10} for m in protocol.MODES}
        patched = {(m, "single", "1", "1", "1"): {"map_p50": 5 * (i + 1)}
                   for i, m in enumerate(protocol.MODES)}
        rows = list(report.rows(baseline, patched))
        self.assertEqual([r["mode"] for r in rows], protocol.MODES)
        self.assertEqual([r["vs_direct_map"] for r in rows], [1.0, 2.0, 3.0, 4.0])
        self.assertEqual([r["ratio_map"] for r in rows], [0.5, 1.0, 1.5, 2.0])


class RenamedTest(unittest.TestCase):
    """A name changed in guest/protocol.sh alone is enough: the fixtures,
    rewritten as a guest speaking the renamed protocol writes them, give
    the same tables."""

    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def renamed(self, renames):
        renamed = wbtest.Renamed(renames)
        self.addCleanup(renamed.close)
        return renamed

    def test_renamed_modes(self):
        renames = {"WB_MODE_DIRECT": "direct", "WB_MODE_LAZY": "fq", "WB_MODE_STRICT": "sync",
                   "WB_MODE_CM": "vtd-cm"}
        renamed = self.renamed(renames)
        new = {renamed.old[name]: value for name, value in renames.items()}
        for case in wbtest.bench_cases():
            with self.subTest(case=case):
                _, before = wbtest.run_report(case_dir(case), self.out)
                status, output = wbtest.run_report(renamed.copy_tree(case_dir(case)), self.out,
                                                   protocol=renamed.protocol)
                self.assertEqual(str(status), wbtest.read(
                    os.path.join(case_dir(case), "expected-status")).strip(), output)
                # The printed report keeps every line, the tables that pick a
                # mode (caching mode's estimate) among them.
                self.assertEqual(len(output.splitlines()), len(before.splitlines()), output)
                self.assertEqual("ESTIMATE" in output, "ESTIMATE" in before)
                for table in ("bench.csv", "workloads.csv"):
                    expected_path = os.path.join(case_dir(case), "expected-" + table
                                                 if table != "bench.csv" else "expected.csv")
                    if not os.path.exists(expected_path):
                        continue
                    expected = wbtest.read_csv(expected_path)
                    for row in expected:
                        row["mode"] = new.get(row["mode"], row["mode"])
                    self.assertEqual(wbtest.read_csv(os.path.join(self.out, table)), expected, table)

    def test_renamed_counters_and_kinds(self):
        renamed = self.renamed({"WB_COUNT_WAIT": "qi_wait", "WB_COUNT_PAGES": "inv_pages",
                                "WB_COUNT_MAP_FLUSH": "map_flush", "WB_COUNT_ALLOC": "slow_allocs",
                                "WB_COUNT_WHOLE": "domain_wide", "WB_COUNT_LOST": "dropped",
                                "WB_KIND_RUN": "measured", "WB_KIND_MATRIX": "asked",
                                "WB_KIND_WORKLOAD": "traffic", "WB_KIND_PLAN": "planned"})
        for case in wbtest.bench_cases():
            with self.subTest(case=case):
                copy = renamed.copy_tree(case_dir(case), '"{old}":')
                status, output = wbtest.run_report(copy, self.out, protocol=renamed.protocol)
                self.assertEqual(str(status), wbtest.read(
                    os.path.join(case_dir(case), "expected-status")).strip(), output)
                self.assertEqual(wbtest.read(os.path.join(self.out, "bench.csv")),
                                 wbtest.read(os.path.join(case_dir(case), "expected.csv")))

    def test_old_names_are_not_read_any_more(self):
        """The counterpart: the fixtures as they are, read with a renamed
        run kind, hold no run."""
        renamed = self.renamed({"WB_KIND_RUN": protocol.KIND_RUN + "_renamed"})
        status, output = wbtest.run_report(case_dir("good"), self.out, protocol=renamed.protocol)
        self.assertEqual(status, 1)
        self.assertIn("no result in the console", output)


if __name__ == "__main__":
    unittest.main()
