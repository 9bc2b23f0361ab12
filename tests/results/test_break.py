#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/check/break.py on a scratch tree, and of the break files of
tests/breaks/ as data (their texts against a tree are make
check-breaks-apply's)."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import wbtest
import protocol

# The mode names of the roles the break files below name (guest/protocol.sh).
LAZY, STRICT, CM = (protocol.ROLES[role] for role in ("lazy", "strict", "cm"))

BREAKS = sorted(glob.glob(os.path.join(wbtest.ROOT, "tests", "breaks", "*.json")))


def load(path):
    with open(path) as f:
        return json.load(f)


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
                            self.brk("twice", "int b;\n"),
                            self.brk("missing-file", "x", file="lib/none.c"))
        status, output = break_py("--verify", self.tree, good, stale)
        self.assertEqual(status, 1)
        self.assertEqual(output.splitlines(), [
            f"{stale}: gone: its text occurs 0 times in lib/a.c, not once",
            f"{stale}: twice: its text occurs 2 times in lib/a.c, not once",
            f"{stale}: missing-file: its text occurs 0 times in lib/none.c, not once"])


class ModesTest(ScratchTree):

    def test_a_break_s_modes_else_the_file_s_else_lazy(self):
        path = self.breaks(self.brk("own", "a"), dict(self.brk("two", "b"), modes=["cm", "lazy"]),
                           modes=["strict"])
        self.assertEqual(break_py("--modes", path, "own"), (0, f"{STRICT}\n"))
        self.assertEqual(break_py("--modes", path, "two"), (0, f"{CM} {LAZY}\n"))
        self.assertEqual(break_py("--modes", self.breaks(self.brk("one", "a")), "one"),
                         (0, f"{LAZY}\n"))

    def test_verify_refuses_unknown_modes_keys_and_incomplete_breaks(self):
        path = self.breaks(dict(self.brk("m", "\treturn 1;\n"), modes=["nested"]),
                           dict(self.brk("typo", "int a(void)"), mode="strict"),
                           {"name": "no-fails", "file": "lib/a.c", "old": "int a", "new": ""},
                           self.brk("m", "int a"), arches="arm64", mode="cm")
        status, output = break_py("--verify", self.tree, path)
        self.assertEqual(status, 1)
        self.assertIn("m: mode nested is not one of the roles", output)
        self.assertIn("typo: unknown key mode", output)
        self.assertIn("no-fails: it has no fails", output)
        self.assertIn(f"{path}: unknown key arches", output)
        self.assertIn(f"{path}: unknown key mode", output)
        self.assertIn(f"{path}: m: named 2 times", output)

    def test_a_renamed_mode_is_named_by_its_role(self):
        """The break files name modes by role: a mode renamed in
        guest/protocol.sh alone comes out of --modes under its new name."""
        renamed = wbtest.Renamed({"WB_MODE_LAZY": "fq"})
        self.addCleanup(renamed.close)
        path = self.breaks(self.brk("one", "a"), dict(self.brk("two", "b"), modes=["cm", "lazy"]))
        for name, modes in (("one", "fq\n"), ("two", f"{CM} fq\n")):
            with self.subTest(name=name):
                self.assertEqual(wbtest.run_script("break.py", "--modes", path, name,
                                                   protocol=renamed.protocol), (0, modes))


# scripts/check/breaks.sh with kbuild.sh and boot.sh standing in for the kernel
class WorkbenchRootTest(ScratchTree):
    """A file whose "root" is "workbench" breaks the workbench's own files
    (the hardware kit's, tests/breaks/hwkit.json): in a copy of break.py, its
    workbench is the copy's."""

    def setUp(self):
        super().setUp()
        self.top = os.path.join(self.dir, "w")
        for name in ("check/break.py", "results/protocol.py"):
            os.makedirs(os.path.dirname(os.path.join(self.top, "scripts", name)), exist_ok=True)
            shutil.copy(os.path.join(wbtest.SCRIPTS, name), os.path.join(self.top, "scripts", name))
        os.makedirs(os.path.join(self.top, "guest"))
        shutil.copy(wbtest.PROTOCOL, os.path.join(self.top, "guest"))
        os.makedirs(os.path.join(self.top, "hw"))
        with open(os.path.join(self.top, "hw", "run.sh"), "w") as out:
            out.write("refuse \"in use\"\n")

    def copied(self, *args):
        run = subprocess.run([sys.executable, os.path.join(self.top, "scripts", "check", "break.py"),
                              *args], capture_output=True, text=True)
        return run.returncode, run.stdout + run.stderr

    def test_root_names_what_a_file_breaks(self):
        self.assertEqual(self.copied("--root", self.breaks(self.brk("one", "a"), root="workbench")),
                         (0, "workbench\n"))
        self.assertEqual(self.copied("--root", self.breaks(self.brk("one", "a"))), (0, "tree\n"))
        status, output = self.copied("--root", self.breaks(self.brk("one", "a"), root="wb"))
        self.assertEqual(status, 1)
        self.assertIn("root wb is not one of tree workbench", output)

    def test_a_workbench_break_applies_to_the_workbench_not_the_tree(self):
        path = self.breaks(self.brk("taken", "refuse", "say", file="hw/run.sh"), root="workbench")
        self.assertEqual(self.copied("--verify", self.tree, path), (0, "1 breaks apply\n"))
        self.assertEqual(self.copied(self.tree, path, "taken"), (0, "a_case\n"))
        self.assertEqual(wbtest.read(os.path.join(self.top, "hw", "run.sh")), 'say "in use"\n')
        self.assertFalse(os.path.exists(os.path.join(self.tree, "hw")))
        # the same break of the tree: not there
        status, output = self.copied("--verify", self.tree,
                                     self.breaks(self.brk("taken", "say", file="hw/run.sh")))
        self.assertEqual(status, 1)
        self.assertIn("taken: its text occurs 0 times in hw/run.sh", output)

    def test_verify_takes_the_kit_s_keys_and_refuses_others(self):
        good = self.breaks(dict(self.brk("own", "refuse", file="hw/run.sh"), append="wb.x=1",
                                devices="-", modes=["direct"]),
                           root="workbench", append="wb.y=1", devices="nopt,icount", seconds=900,
                           job="hwkit")
        self.assertEqual(self.copied("--verify", self.tree, good), (0, "1 breaks apply\n"))
        bad = self.breaks(dict(self.brk("typo", "refuse", file="hw/run.sh"), device="-",
                               seconds=9), root="workbench", roots="tree")
        status, output = self.copied("--verify", self.tree, bad)
        self.assertEqual(status, 1)
        self.assertEqual(sorted(output.splitlines()), sorted([
            f"{bad}: unknown key roots", f"{bad}: typo: unknown key device",
            f"{bad}: typo: unknown key seconds"]))
        wrong_root = self.breaks(self.brk("one", "refuse", file="hw/run.sh"), root="Workbench")
        status, output = self.copied("--verify", self.tree, wrong_root)
        self.assertEqual((status, output),
                         (1, f"{wrong_root}: root Workbench is not one of tree workbench\n"))

    def test_field_is_a_break_s_else_its_file_s(self):
        path = self.breaks(dict(self.brk("own", "a"), devices="-", append="wb.hwkit=noiommu"),
                           self.brk("other", "b"), append="wb.maps=single", devices="nopt")
        for name, field, value in (("own", "devices", "-"), ("own", "append", "wb.hwkit=noiommu"),
                                   ("other", "devices", "nopt"),
                                   ("other", "append", "wb.maps=single")):
            with self.subTest(name=name, field=field):
                self.assertEqual(break_py("--field", path, name, field), (0, value + "\n"))
        self.assertEqual(break_py("--field", self.breaks(self.brk("one", "a")), "one", "devices"),
                         (0, "\n"))


# build and QEMU: the boot's console shows the case failing in every mode
# but strict.
FAKE_BOOT = f"""#!/bin/bash
[ "$2" = {STRICT} ] || printf '    not ok 1 a_case\\r\\n' >"$5"
[ "$2" != {STRICT} ] || printf '    ok 1 a_case\\n' >"$5"
"""


class BreaksShTest(ScratchTree):

    def setUp(self):
        super().setUp()
        scripts = os.path.join(self.dir, "w", "scripts")
        for flow in ("check", "results", "build", "run"):
            os.makedirs(os.path.join(scripts, flow))
        shutil.copy(os.path.join(wbtest.SCRIPTS, "lib.sh"), scripts)
        for name in ("check/breaks.sh", "check/break.py", "results/protocol.py"):
            shutil.copy(os.path.join(wbtest.SCRIPTS, name), os.path.join(scripts, name))
        os.makedirs(os.path.join(self.dir, "w", "guest"))
        shutil.copy(wbtest.PROTOCOL, os.path.join(self.dir, "w", "guest"))
        for name, text in (("build/kbuild.sh", "#!/bin/bash\n"), ("run/boot.sh", FAKE_BOOT)):
            with open(os.path.join(scripts, name), "w") as out:
                out.write(text)
            os.chmod(os.path.join(scripts, name), 0o755)
        self.script = os.path.join(scripts, "check", "breaks.sh")
        git = ["git", "-C", self.tree, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(git[:3] + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "tree"], check=True)

    def test_each_mode_and_a_stale_break_do_not_stop_the_rest(self):
        path = self.breaks(dict(self.brk("both", "\treturn 1;\n", "\treturn 0;\n"),
                                modes=["cm", "strict"]),
                           self.brk("stale", "int c;\n"),
                           dict(self.brk("no-role", "int b;\nint b;\n", "int b;\n"),
                                modes=["nested"]),
                           self.brk("last", "int a(void)", "int a(int)"), job="modules")
        results = os.path.join(self.dir, "check", "results")
        os.makedirs(os.path.dirname(results))
        run = subprocess.run(["bash", self.script, "x86_64", self.tree, "out", "image",
                              "initrd", path, results], capture_output=True, text=True)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual(wbtest.read(results).splitlines(), [
            f"PASS break both fails suite.a_case in {CM} mode",
            f"FAIL break both fails suite.a_case in {STRICT} mode # it does not; console: "
            f"{self.dir}/check/breaks-suite/both-{STRICT}.log",
            "FAIL break stale of suite applies # see make check-breaks-apply",
            "FAIL break no-role of suite names its modes # see make check-breaks-apply",
            f"PASS break last fails suite.a_case in {LAZY} mode"])
        self.assertEqual(subprocess.run(["git", "-C", self.tree, "status", "--porcelain"],
                                        capture_output=True, text=True).stdout, "")

    def test_a_break_that_does_not_build_names_its_build_log(self):
        """No console is written for a kernel that did not build: the result
        names the build's log, in each mode, and the next break runs."""
        with open(os.path.join(os.path.dirname(self.script), "..", "build", "kbuild.sh"), "w") as out:
            out.write('#!/bin/bash\n! grep -rq "#error" "$2/lib"\n')
        path = self.breaks(dict(self.brk("unbuilt", "int a(void)", "#error\nint a(void)"),
                                modes=["cm", "lazy"]),
                           self.brk("next", "\treturn 1;\n", "\treturn 0;\n"))
        results = os.path.join(self.dir, "check", "results")
        os.makedirs(os.path.dirname(results))
        run = subprocess.run(["bash", self.script, "x86_64", self.tree, "out", "image",
                              "initrd", path, results], capture_output=True, text=True)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        build = f"{self.dir}/check/breaks-suite/unbuilt.build"
        self.assertEqual(wbtest.read(results).splitlines(), [
            f"FAIL break unbuilt fails suite.a_case in {CM} mode # its build failed: {build}",
            f"FAIL break unbuilt fails suite.a_case in {LAZY} mode # its build failed: {build}",
            f"PASS break next fails suite.a_case in {LAZY} mode"])

    def test_a_break_s_command_line_and_devices_reach_its_boot(self):
        """A break's own "append" and "devices", else its file's, reach the
        boot as kernel parameters, QEMU options and clock; devices the
        architecture lacks fail the break without a boot."""
        calls = os.path.join(self.dir, "calls")
        # devices_qemu reads the architecture's facts
        shutil.copytree(os.path.join(wbtest.ROOT, "archs"), os.path.join(self.dir, "w", "archs"))
        with open(os.path.join(self.dir, "w", "scripts", "run", "boot.sh"), "w") as out:
            out.write('#!/bin/bash\necho "$2 $6 [$7] [$WB_QEMU_ARGS] $WB_SMP $WB_ICOUNT" >>"$CALLS"\n'
                      "printf '    not ok 1 a_case # why\\n' >\"$5\"\n")
        path = self.breaks(dict(self.brk("own", "\treturn 1;\n"), append="wb.hwkit=noiommu",
                                devices="-", modes=["direct"]),
                           self.brk("file-s", "int a(void)"),
                           dict(self.brk("no-device", "\treturn 1;\n"), devices="nvmx"),
                           job="hwkit", append="wb.maps=single", devices="nopt,icount",
                           seconds=900)
        results = os.path.join(self.dir, "check", "results")
        os.makedirs(os.path.dirname(results))
        run = subprocess.run(["bash", self.script, "x86_64", self.tree, "out", "image",
                              "initrd", path, results], capture_output=True, text=True,
                             env=dict(os.environ, CALLS=calls))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        import protocol
        append = "kunit.enable=1 kunit.filter_glob=suite wb.job=hwkit"
        self.assertEqual(wbtest.read(calls).splitlines(), [
            f"{protocol.MODE_DIRECT} 900 [{append} wb.hwkit=noiommu] [] 2 ",
            f"{protocol.MODE_LAZY} 900 [{append} wb.maps=single] [-global intel-iommu.pt=off] 1 1"])
        self.assertEqual(wbtest.read(results).splitlines(), [
            f"PASS break own fails suite.a_case in {protocol.MODE_DIRECT} mode",
            f"PASS break file-s fails suite.a_case in {protocol.MODE_LAZY} mode",
            "FAIL break no-device of suite names its devices # devices 'nvmx'"])


class BreakFilesTest(unittest.TestCase):
    """The break files of tests/breaks/ as data."""

    def test_each_break_is_complete_and_named_once(self):
        for path in BREAKS:
            with self.subTest(file=os.path.basename(path)):
                data = load(path)
                self.assertTrue(data["suite"])
                names = [b["name"] for b in data["breaks"]]
                self.assertEqual(len(names), len(set(names)))
                for brk in data["breaks"]:
                    self.assertLessEqual({"name", "file", "old", "new", "fails"}, set(brk))
                    self.assertNotEqual(brk["old"], brk["new"], brk["name"])

    def test_modes_are_the_protocol_s_and_the_arch_s(self):
        """Each break's modes, as break.py --modes names them, are modes of
        the protocol the break's architecture can boot."""
        import protocol
        for path in BREAKS:
            data = load(path)
            arch = wbtest.read(os.path.join(wbtest.ROOT, "archs",
                                            data.get("arch", "x86_64") + ".sh"))
            for brk in data["breaks"]:
                status, output = break_py("--modes", path, brk["name"])
                for mode in output.split():
                    with self.subTest(file=os.path.basename(path), brk=brk["name"], mode=mode):
                        self.assertEqual(status, 0)
                        role = {name: role for role, name in protocol.ROLES.items()}[mode]
                        self.assertIn(f"append_{role}=", arch)

    def test_no_break_is_copied_for_another_mode(self):
        """A break of one suite in two files (one per mode) would go stale
        twice: one break names both modes."""
        seen = {}
        for path in BREAKS:
            data = load(path)
            for brk in data["breaks"]:
                key = (data["suite"], brk["file"], brk["old"], brk["new"])
                self.assertFalse(key in seen, f"{brk['name']} of {path} is {seen.get(key)}")
                seen[key] = f"{brk['name']} of {path}"

if __name__ == "__main__":
    unittest.main()
