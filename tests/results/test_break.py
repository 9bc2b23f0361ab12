#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/break.py on a scratch tree, and of the break files of
tests/breaks/ as data (their texts against a tree are make
check-breaks-apply's)."""

import glob
import json
import os
import shutil
import tempfile
import unittest

import wbtest

BREAKS = sorted(glob.glob(os.path.join(wbtest.ROOT, "tests", "breaks", "*.json")))


def break_py(*args):
    return wbtest.run_script("break.py", *args)


class ScratchTree(unittest.TestCase):
    """A tree with one file and a break file naming its lines."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.tree = os.path.join(self.dir, "tree")
        os.makedirs(os.path.join(self.tree, "lib"))
        self.write("lib/a.c", "int a(void)\n{\n\treturn 1;\n}\nint b;\nint b;\n")

    def write(self, name, text):
        with open(os.path.join(self.tree, name), "w") as out:
            out.write(text)

    def breaks(self, *breaks, **fields):
        path = os.path.join(self.dir, f"suite{len(os.listdir(self.dir))}.json")
        with open(path, "w") as out:
            json.dump(dict({"suite": "suite", "breaks": list(breaks)}, **fields), out)
        return path

    @staticmethod
    def brk(name, old, new="", file="lib/a.c", fails="a_case"):
        return {"name": name, "file": file, "old": old, "new": new, "fails": fails}


class ApplyTest(ScratchTree):

    def test_apply_replaces_the_text_and_prints_the_case(self):
        path = self.breaks(self.brk("one", "\treturn 1;\n", "\treturn 0;\n"))
        self.assertEqual(break_py(self.tree, path, "one"), (0, "a_case\n"))
        self.assertIn("\treturn 0;\n", wbtest.read(os.path.join(self.tree, "lib/a.c")))

    def test_text_not_once_is_refused_by_name(self):
        path = self.breaks(self.brk("twice", "int b;\n"), self.brk("never", "int c;\n"))
        for name, times in (("twice", 2), ("never", 0)):
            with self.subTest(name=name):
                status, output = break_py(self.tree, path, name)
                self.assertEqual(status, 1)
                self.assertIn(f"{name}: its text occurs {times} times in lib/a.c, not once",
                              output)
        self.assertEqual(wbtest.read(os.path.join(self.tree, "lib/a.c")).count("int b;"), 2)

    def test_unknown_name(self):
        path = self.breaks(self.brk("one", "\treturn 1;\n"))
        status, output = break_py(self.tree, path, "two")
        self.assertEqual(status, 1)
        self.assertIn("no break named two", output)

    def test_list_and_arch(self):
        path = self.breaks(self.brk("one", "a"), self.brk("two", "b"), arch="arm64")
        self.assertEqual(break_py("--list", path), (0, "one\ntwo\n"))
        self.assertEqual(break_py("--arch", path), (0, "arm64\n"))
        self.assertEqual(break_py("--arch", self.breaks(self.brk("one", "a"))), (0, "x86_64\n"))


class VerifyTest(ScratchTree):

    def test_every_break_applies(self):
        path = self.breaks(self.brk("one", "\treturn 1;\n"), self.brk("two", "int a(void)"))
        self.assertEqual(break_py("--verify", self.tree, path), (0, "2 breaks apply\n"))

    def test_a_stale_break_is_named_with_its_file(self):
        good = self.breaks(self.brk("one", "\treturn 1;\n"))
        stale = self.breaks(self.brk("gone", "\treturn 2;\n"),
                            self.brk("missing-file", "x", file="lib/none.c"))
        status, output = break_py("--verify", self.tree, good, stale)
        self.assertEqual(status, 1)
        self.assertEqual(output.splitlines(), [
            f"{stale}: gone: its text occurs 0 times in lib/a.c, not once",
            f"{stale}: missing-file: its text occurs 0 times in lib/none.c, not once"])


class BreakFilesTest(unittest.TestCase):
    """The break files of tests/breaks/ as data."""

    def test_each_break_is_complete_and_named_once(self):
        for path in BREAKS:
            with self.subTest(file=os.path.basename(path)):
                with open(path) as f:
                    data = json.load(f)
                self.assertTrue(data["suite"])
                names = [b["name"] for b in data["breaks"]]
                self.assertEqual(len(names), len(set(names)))
                for brk in data["breaks"]:
                    self.assertLessEqual({"name", "file", "old", "new", "fails"}, set(brk))
                    self.assertNotEqual(brk["old"], brk["new"], brk["name"])


if __name__ == "__main__":
    unittest.main()
