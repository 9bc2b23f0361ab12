#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/hw-report.py (make hw-report): two of the
kit's result sets, made of tests/bench/good's consoles and a machine.json,
give report.py's tables; different machines or matrices are refused,
naming what differs, unless --anyway."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import wbtest

MACHINE = {"machine": {"arch": "x86_64", "cpu": "Fake CPU", "cpus": 4, "numa_nodes": 1,
                       "iommus": [{"name": "dmar0", "caching_mode": False}],
                       "device": "0000:03:00.0 0x8086:0x10d3"},
           "kernel": {"release": "7.3.4", "cmdline": "intel_iommu=on"},
           "matrix": {"modes": ["off", "lazy"], "maps": ["single"], "granules": [1, 16, 64],
                      "threads": [1], "depths": [1], "seconds": 1},
           "modes": {"off": {"type": "identity", "rc": 0}, "lazy": {"type": "DMA-FQ", "rc": 0}},
           "tool": "series", "devices": []}


class HwReportTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.dirs = {}
        for name, kernel in (("A", "baseline"), ("B", "patched")):
            path = os.path.join(self.tmp, name)
            shutil.copytree(os.path.join(wbtest.BENCH, "good", kernel), path)
            self.dirs[name] = path
            self.describe(name, MACHINE)

    def describe(self, name, machine):
        with open(os.path.join(self.dirs[name], "machine.json"), "w") as f:
            json.dump(machine, f)

    def report(self, *extra):
        return subprocess.run([sys.executable, "-B", wbtest.script_path("hw-report.py"), *extra,
                               os.path.join(self.tmp, "out"), self.dirs["A"], self.dirs["B"]],
                              capture_output=True, text=True)

    def test_one_machine_gives_the_tables(self):
        run = self.report()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("baseline = A:", run.stdout)
        self.assertIn("identity domain", run.stdout)
        rows = wbtest.read_csv(os.path.join(self.tmp, "out", "bench.csv"))
        self.assertEqual(len(rows), 6)
        self.assertTrue(all(row["patched_map_p99"] for row in rows))

    def test_different_machines_are_refused_unless_anyway(self):
        other = json.loads(json.dumps(MACHINE))
        other["machine"]["iommus"][0]["caching_mode"] = True
        self.describe("B", other)
        run = self.report()
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("machine.iommus", run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out")))
        run = self.report("--anyway")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("compared anyway: machine.iommus", run.stdout)

    def test_smmu_features_a_lost_log_no_longer_holds_are_not_compared(self):
        with_smmu = json.loads(json.dumps(MACHINE))
        with_smmu["machine"]["smmuv3"] = [{"device": "arm-smmu-v3.0.auto",
                                          "features": "0x00008305", "coherency": True}]
        lost = json.loads(json.dumps(MACHINE))
        lost["machine"]["smmuv3"] = []
        self.describe("A", with_smmu)
        self.describe("B", lost)
        run = self.report()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        other = json.loads(json.dumps(with_smmu))
        other["machine"]["smmuv3"][0]["features"] = "0x00000305"
        self.describe("B", other)
        run = self.report()
        self.assertIn("machine.smmuv3", run.stderr)

    def test_different_iommu_parameters_are_said(self):
        other = json.loads(json.dumps(MACHINE))
        other["kernel"]["cmdline"] = "quiet intel_iommu=on iommu.strict=1 iova.cache_max=1024"
        self.describe("B", other)
        run = self.report()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("different IOMMU parameters: A intel_iommu=on, "
                      "B intel_iommu=on iommu.strict=1 iova.cache_max=1024", run.stdout)

    def test_different_matrices_are_refused(self):
        other = json.loads(json.dumps(MACHINE))
        other["matrix"]["depths"] = [1, 64]
        self.describe("A", other)
        run = self.report()
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("matrix.depths: [1, 64] against [1]", run.stderr)

    def test_a_directory_without_machine_json_is_refused(self):
        os.remove(os.path.join(self.dirs["A"], "machine.json"))
        run = self.report()
        self.assertIn("no result set of the kit", run.stderr)


if __name__ == "__main__":
    unittest.main()
