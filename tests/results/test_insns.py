#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/insns.py's parsing and table (make insns), on traces
and symbol tables made up here: no kernel, no gdb."""

import io
import json
import os
import shutil
import tempfile
import unittest
from contextlib import redirect_stdout
from unittest import mock

import wbtest  # noqa: F401 (puts scripts/ on the path)
import insns

SYMS = [(0x1000, "dma_map_page_attrs"), (0x1100, "iommu_dma_map_page"),
        (0x1400, "alloc_iova_fast"), (0x1800, "next_function")]


class PerFunctionTest(unittest.TestCase):

    def test_each_pc_counts_for_the_function_it_is_in(self):
        call = [0x1000, 0x1004, 0x1100, 0x13ff, 0x1400, 0x1000]
        self.assertEqual(insns.per_function(call, SYMS),
                         {"dma_map_page_attrs": 3, "iommu_dma_map_page": 2,
                          "alloc_iova_fast": 1})

    def test_median_call(self):
        calls = [[1] * 5, [1] * 3, [1] * 4]
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(len(insns.median_call(calls, "x")), 4)
        self.assertIn("note: x: calls of 3-5 instructions", out.getvalue())

    def test_no_call_is_an_error(self):
        with self.assertRaises(SystemExit):
            insns.median_call([], "patched dma_map_page_attrs")

    def test_symbols_keep_text_only(self):
        nm = mock.Mock(stdout="0000000000001000 T dma_map_page_attrs\n"
                              "0000000000001100 t iommu_dma_map_page\n"
                              "0000000000002000 D some_data\n0000000000001400 W weak_one\n")
        with mock.patch("subprocess.run", return_value=nm):
            self.assertEqual(insns.symbols("vmlinux"),
                             [(0x1000, "dma_map_page_attrs"), (0x1100, "iommu_dma_map_page"),
                              (0x1400, "weak_one")])


class TableTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def trace(self, name, calls):
        path = os.path.join(self.dir, name)
        with open(path, "w") as out:
            json.dump({"dma_map_page_attrs": calls}, out)
        return path

    def test_two_kernels_side_by_side(self):
        baseline = self.trace("b.json", [[0x1000, 0x1100, 0x1101, 0x1400]])
        patched = self.trace("p.json", [[0x1000, 0x1100]])
        out = io.StringIO()
        with mock.patch("insns.symbols", return_value=SYMS), redirect_stdout(out):
            insns.main("lazy mode", [f"baseline:{baseline}:vmlinux",
                                     f"patched:{patched}:vmlinux"])
        self.assertEqual(out.getvalue().splitlines(), [
            "",
            "dma_map_page_attrs, lazy mode: instructions of one call, function by function",
            f"{'function':40}{'baseline':>10}{'patched':>10}",
            f"{'iommu_dma_map_page':40}{2:>10}{1:>10}",
            f"{'alloc_iova_fast':40}{1:>10}{0:>10}",
            f"{'dma_map_page_attrs':40}{1:>10}{1:>10}",
            f"{'total':40}{4:>10}{2:>10}"])


if __name__ == "__main__":
    unittest.main()
