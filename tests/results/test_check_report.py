# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/check/report.sh, make check-report: report.py fed the
debug boots' consoles, here the saved ones of tests/consoles/ (the three
debug rows of configs/boots), whole and with one object taken out or
doubled."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import wbtest
import protocol

LABELS = ("x86_64-debug-lazy", "x86_64-debug-strict", "x86_64-debug-cm")


class CheckReportTest(unittest.TestCase):

    def setUp(self):
        self.fresh_copies()

    def fresh_copies(self):
        """The saved consoles, copied where a case may edit them."""
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.logs = os.path.join(self.dir, "logs")
        os.makedirs(self.logs)
        for label in LABELS:
            shutil.copy(os.path.join(wbtest.CONSOLES, label + ".log"), self.logs)

    def edit(self, label, kind, how):
        """Take out (how="drop") or double (how="double") the first JSON
        object of <kind> in <label>'s console."""
        path = os.path.join(self.logs, label + ".log")
        lines = wbtest.read(path).splitlines(keepends=True)
        start = re.compile(r'^\s*# \{"' + re.escape(kind) + '":')
        i = next(n for n, line in enumerate(lines) if start.match(line))
        lines[i:i + 1] = [] if how == "drop" else [lines[i]] * 2
        with open(path, "w") as out:
            out.writelines(lines)

    def run_report(self):
        results = os.path.join(self.dir, "results")
        run = subprocess.run(["bash", wbtest.script_path("report.sh"), results, self.logs],
                             capture_output=True, text=True)
        return run.returncode, wbtest.read(results).strip() if os.path.exists(results) else ""

    def test_the_saved_consoles_pass(self):
        self.assertEqual(self.run_report(), (
            0, "PASS report.py on the debug boots' consoles # 32 runs, 32 counted, 1 workloads"))

    def test_a_lost_or_doubled_object_fails(self):
        for label, kind, how in ((LABELS[1], protocol.KIND_RUN, "drop"),
                                 (LABELS[2], protocol.KIND_RUN, "double"),
                                 (LABELS[0], protocol.KIND_WORKLOAD, "drop"),
                                 (LABELS[0], protocol.KIND_WORKLOAD, "double")):
            with self.subTest(label=label, kind=kind, how=how):
                self.fresh_copies()
                self.edit(label, kind, how)
                status, result = self.run_report()
                self.assertEqual(status, 1, result)
                self.assertTrue(result.startswith("FAIL report.py on the debug boots"), result)

    def take_member(self, label, kind, member):
        """Take <member> ("name":value) out of the first JSON object of
        <kind> in <label>'s console."""
        path = os.path.join(self.logs, label + ".log")
        lines = wbtest.read(path).splitlines(keepends=True)
        start = re.compile(r'^\s*# \{"' + re.escape(kind) + '":')
        i = next(n for n, line in enumerate(lines) if start.match(line))
        lines[i], count = re.subn(r',"' + member + r'":[0-9.]+', "", lines[i], count=1)
        self.assertEqual(count, 1, f"no {member} in {lines[i]}")
        with open(path, "w") as out:
            out.writelines(lines)

    def test_a_row_without_its_numbers_fails(self):
        """report.py writes such rows and exits 0: the check's own reading of
        the tables must fail them."""
        for label, kind, member, why in (
                (LABELS[1], protocol.KIND_RUN, "mean_ns", "lack a key or a latency"),
                (LABELS[0], protocol.KIND_WORKLOAD, "iops", "lack a value")):
            with self.subTest(kind=kind, member=member):
                self.fresh_copies()
                self.take_member(label, kind, member)
                status, result = self.run_report()
                self.assertEqual(status, 1, result)
                self.assertIn(why, result)

    def test_a_counted_run_that_counted_nothing_fails(self):
        """A guest whose probes read 0 (its reading of kprobe_profile broken)
        still prints every member: the IOTLB waits must be above 0."""
        path = os.path.join(self.logs, LABELS[1] + ".log")
        text, count = re.subn(r'"counted":\{"' + protocol.COUNT_WAIT + r'":[0-9]+',
                              '"counted":{"' + protocol.COUNT_WAIT + '":0',
                              wbtest.read(path), count=1)
        self.assertEqual(count, 1)
        with open(path, "w") as out:
            out.write(text)
        status, result = self.run_report()
        self.assertEqual(status, 1, result)
        self.assertIn(f"31 of 32 counted runs count {protocol.COUNT_WAIT} calls", result)

    def test_caching_mode_runs_that_flushed_nothing_on_unmap_pass(self):
        """In caching mode the report counts the unmap side only (waits less
        the maps' flushes), which a one-second run of the single queue may
        leave at 0: that is no failure."""
        path = os.path.join(self.logs, LABELS[2] + ".log")
        text, count = re.subn(r'"counted":\{"' + protocol.COUNT_WAIT + r'":([0-9]+),"'
                              + protocol.COUNT_MAP_FLUSH + r'":[0-9]+',
                              lambda m: f'"counted":{{"{protocol.COUNT_WAIT}":{m.group(1)},'
                              f'"{protocol.COUNT_MAP_FLUSH}":{m.group(1)}',
                              wbtest.read(path))
        self.assertGreater(count, 1)
        with open(path, "w") as out:
            out.write(text)
        self.assertEqual(self.run_report()[0], 0)

    def test_a_counted_run_without_counters_in_the_table_fails(self):
        """A counted run whose table row holds no counters (here its tool
        result lacks the ops the counts are divided by): report.py exits 0,
        the check must not."""
        path = os.path.join(self.logs, LABELS[1] + ".log")
        head, counted, tail = wbtest.read(path).partition('"counted":{')
        tail, count = re.subn(r'"ops":[0-9]+,', "", tail, count=1)
        self.assertEqual(count, 1)
        with open(path, "w") as out:
            out.write(head + counted + tail)
        status, result = self.run_report()
        self.assertEqual(status, 1, result)
        self.assertIn("31 rows of bench.csv hold counters for 32 counted runs", result)

    def test_a_renamed_mode_names_its_console(self):
        """With every mode renamed in guest/protocol.sh alone, the debug
        consoles are laid out under the new names, which report.py reads."""
        renamed = wbtest.Renamed({"WB_MODE_DIRECT": "none", "WB_MODE_LAZY": "fq",
                                  "WB_MODE_STRICT": "sync", "WB_MODE_CM": "vcm"})
        self.addCleanup(renamed.close)
        scripts = wbtest.copy_workbench(os.path.join(self.dir, "w"), wbtest.read(renamed.protocol))
        results = os.path.join(self.dir, "results")
        run = subprocess.run(["bash", os.path.join(scripts, "check", "report.sh"), results,
                              self.logs], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("PASS report.py on the debug boots' consoles # 32 runs", wbtest.read(results))

    def test_renamed_kinds_and_counters_are_read(self):
        """With the JSON kinds and the counters renamed in guest/protocol.sh
        alone, and the consoles as a guest speaking it writes them, the
        check counts the same objects."""
        renamed = wbtest.Renamed({"WB_KIND_RUN": "measured", "WB_KIND_PLAN": "planned",
                                  "WB_KIND_WORKLOAD": "traffic", "WB_KIND_MATRIX": "asked",
                                  "WB_COUNT_WAIT": "qi_wait", "WB_COUNT_MAP_FLUSH": "map_flush"})
        self.addCleanup(renamed.close)
        for label in LABELS:
            path = os.path.join(self.logs, label + ".log")
            text = renamed.rewrite(wbtest.read(path), '"{old}":')
            with open(path, "w") as out:
                out.write(text)
        scripts = wbtest.copy_workbench(os.path.join(self.dir, "w"), wbtest.read(renamed.protocol))
        results = os.path.join(self.dir, "results")
        run = subprocess.run(["bash", os.path.join(scripts, "check", "report.sh"), results,
                              self.logs], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(wbtest.read(results).strip(), "PASS report.py on the debug boots' "
                         "consoles # 32 runs, 32 counted, 1 workloads")

    def test_a_missing_console_fails(self):
        os.remove(os.path.join(self.logs, LABELS[2] + ".log"))
        status, result = self.run_report()
        self.assertEqual(status, 1)
        self.assertIn("no console of boot x86_64-debug-cm", result)

    def test_a_console_found_twice_fails(self):
        """Two directories holding one boot's console: which is this run's?"""
        results = os.path.join(self.dir, "results")
        run = subprocess.run(["bash", wbtest.script_path("report.sh"), results, self.logs,
                              self.logs + "/."], capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("boot x86_64-debug-lazy has 2 consoles", wbtest.read(results))


if __name__ == "__main__":
    unittest.main()
