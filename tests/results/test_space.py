#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/space.sh, the check that a run fits on the disk before it
starts: it refuses naming what to free, and what the build directory already
holds counts towards the run."""

import os
import shutil
import subprocess
import tempfile
import unittest

import wbtest

GIB_KIB = 1024 * 1024


def space(directory, need_gib):
    run = subprocess.run(["bash", os.path.join(wbtest.SCRIPTS, "space.sh"), directory,
                          str(need_gib), "the run"], capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def free_kib(directory):
    st = os.statvfs(directory)
    return st.f_bavail * st.f_frsize // 1024


class SpaceTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_fits(self):
        self.assertEqual(space(self.dir, 0), (0, ""))

    def test_refuses_naming_what_to_free(self):
        need = free_kib(self.dir) // GIB_KIB + 64
        rc, out = space(self.dir, need)
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, rf"the run needs about {need} GiB in {self.dir}: .* free \d+\.\d GiB more")

    def test_what_the_directory_holds_counts(self):
        """Free space alone is short of the need, free plus what the directory
        holds is at least a GiB over it: a warm build tree is not refused."""
        held = os.path.join(self.dir, "held")
        try:
            with open(held, "wb") as f:
                os.posix_fallocate(f.fileno(), 0, (2 * GIB_KIB + 64 * 1024) * 1024)
        except OSError as e:
            self.skipTest(f"cannot allocate 2 GiB in {self.dir}: {e}")
        held_kib = os.stat(held).st_blocks // 2
        need = (free_kib(self.dir) + held_kib) // GIB_KIB - 1
        self.assertLess(free_kib(self.dir), need * GIB_KIB)
        self.assertEqual(space(self.dir, need), (0, ""))

    def test_refuses_a_need_that_is_no_number(self):
        rc, out = space(self.dir, "1.5")
        self.assertEqual(rc, 1)
        self.assertIn("not a whole number of GiB: 1.5", out)


if __name__ == "__main__":
    unittest.main()
