#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/results/protocol.py and guest/protocol.sh: the Python reads what
the shell sources, the data that names modes uses the protocol's, the
module's fault line matches FAULTS, and the shell follows a rename."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import wbtest
import protocol


def shell_values(shell, path, names):
    """The values <shell> gets for <names> by sourcing <path>."""
    script = '. "$1"; shift; for n; do eval "printf \'%s\\0\' \\"\\$$n\\""; done'
    run = subprocess.run([*shell, "-c", script, "sh", path, *names],
                         capture_output=True, text=True, check=True)
    return dict(zip(names, run.stdout.split("\0")))


class ParseTest(unittest.TestCase):

    def test_plain_assignments_and_references(self):
        values = protocol.parse('# a comment\nA=one\nB="two $A"\n\nC="${B} three"\n')
        self.assertEqual(values, {"A": "one", "B": "two one", "C": "two one three"})

    def test_undefined_reference_is_an_error(self):
        with self.assertRaises(SystemExit) as err:
            protocol.parse('A="$B"\n', "p.sh")
        self.assertIn("p.sh:1: $B is not defined", str(err.exception))

    def test_anything_but_an_assignment_is_an_error(self):
        for line in ("export A=1", "A=$(uname)", "A=`uname`", "A=one two", "a=1",
                     "A='one'", "A=\"x\" # comment", 'A="$(uname)"', "A=${B:-x}", "A=~/x",
                     'A="$"'):
            with self.subTest(line=line), self.assertRaises(SystemExit) as err:
                protocol.parse(line + "\n", "p.sh")
            self.assertIn("p.sh:1: not a plain assignment", str(err.exception))

    def test_roles_come_from_the_mode_names(self):
        """A mode added or renamed in protocol.sh is a role with no other edit;
        two modes under one name are refused."""
        for renames, expected in (({"WB_MODE_CM": "vcm"}, "cm vcm"),
                                  ({"WB_MODE_CM": protocol.MODE_LAZY}, None)):
            with self.subTest(renames=renames):
                renamed = wbtest.Renamed(renames)
                self.addCleanup(renamed.close)
                run = subprocess.run(
                    ["python3", "-c", "import protocol; print('cm', protocol.ROLES['cm'])"],
                    capture_output=True, text=True, cwd=os.path.join(wbtest.ROOT, "scripts", "results"),
                    env=dict(os.environ, WB_PROTOCOL=renamed.protocol))
                if expected:
                    self.assertEqual((run.returncode, run.stdout.strip()), (0, expected))
                else:
                    self.assertEqual(run.returncode, 1)
                    self.assertIn("WB_MODES must list each WB_MODE_<ROLE> once", run.stderr)

    def test_the_module_reads_the_file(self):
        values = protocol.load(wbtest.PROTOCOL)
        self.assertEqual(protocol.MODES, values["WB_MODES"].split())
        self.assertEqual(protocol.END_MARKER, values["WB_END_MARKER"])
        self.assertEqual(protocol.KIND_RUN, values["WB_KIND_RUN"])
        for role in (protocol.MODE_DIRECT, protocol.MODE_LAZY, protocol.MODE_STRICT,
                     protocol.MODE_CM):
            self.assertIn(role, protocol.MODES)


class ShellTest(unittest.TestCase):
    """What the guest's busybox sh and the host's bash source is what
    protocol.py reads."""

    def test_shells_agree_with_python(self):
        values = protocol.load(wbtest.PROTOCOL)
        shells = [["bash"], ["sh"]] + ([["busybox", "sh"]] if shutil.which("busybox") else [])
        for shell in shells:
            with self.subTest(shell=shell[0]):
                self.assertEqual(shell_values(shell, wbtest.PROTOCOL, list(values)), values)

    def test_console_readers_follow_renamed_markers(self):
        """scripts/lib.sh's guest_passed() (boot.sh: a boot passed) and
        trace_started() (insns.sh: the runs a debugger steps through
        started) read the markers of the protocol."""
        renamed = wbtest.Renamed({"WB_END_MARKER": "# wb: done rc=", "WB_TRACE_START": "wb: go"})
        self.addCleanup(renamed.close)
        for text, expected in (("# wb: done rc=0\r\n# wb: go\r\n", "passed started"),
                               ("# wb: end rc=0\n# wb: trace runs start\n", ""),
                               ("# wb: done rc=1\n", "")):
            with self.subTest(text=text):
                console = os.path.join(renamed.dir, "console.log")
                with open(console, "w") as out:
                    out.write(text)
                run = subprocess.run(
                    ["bash", "-c", '. "$1"; . "$2"; guest_passed "$3" && echo passed; '
                     'trace_started "$3" && echo started; true', "sh",
                     os.path.join(wbtest.SCRIPTS, "lib.sh"), renamed.protocol, console],
                    capture_output=True, text=True, check=True)
                self.assertEqual(run.stdout.split(), expected.split())

    def test_guest_end_follows_a_renamed_marker(self):
        """scripts/lib.sh's guest_end() (boot.sh) reads WB_END_MARKER."""
        renamed = wbtest.Renamed({"WB_END_MARKER": "# wb: done rc="})
        self.addCleanup(renamed.close)
        console = os.path.join(renamed.dir, "console.log")
        with open(console, "w") as out:
            out.write("boot\r\n# wb: end rc=0\r\n# wb: done rc=3\r\n")
        run = subprocess.run(["bash", "-c", '. "$1"; . "$2"; guest_end "$3"', "sh",
                              os.path.join(wbtest.SCRIPTS, "lib.sh"), renamed.protocol,
                              console], capture_output=True, text=True, check=True)
        self.assertEqual(run.stdout, "# wb: done rc=3\n")

    @unittest.skipUnless(shutil.which("busybox"), "the guest's busybox is not installed")
    def test_renamed_probe_counters_count_the_same_functions(self):
        """A probe counter renamed in the protocol alone keeps counting its
        function: the probe takes the new name, the kernel function stays,
        and counters_off prints the new name (a tracefs stand-in)."""
        renamed = wbtest.Renamed({"WB_COUNT_WAIT": "qi_wait", "WB_COUNT_ALLOC": "slow_allocs",
                                  "WB_COUNT_MAP_FLUSH": "map_flush"})
        self.addCleanup(renamed.close)
        tracing = os.path.join(renamed.dir, "tracing")
        os.makedirs(tracing)
        for name in ("kprobe_events", "tracing_on"):
            open(os.path.join(tracing, name), "w").close()
        with open(os.path.join(tracing, "kprobe_profile"), "w") as out:
            # Linux 7.3's layout: the event's name without its group.
            for event, hits in (("qi_wait", 7), ("map_flush", 0), ("slow_allocs", 2)):
                out.write("  %-44s %15d %15d\n" % (event, hits, 0))
        # The kernel makes each probe's event directory; a second step's
        # counters_setup (the kit runs one per mode) finds them and places
        # nothing again, which the kernel would refuse (EEXIST).
        script = ('. "$1"; . "$2"; set -- $(counters_setup); '
                  'for c; do mkdir -p "$WB_TRACING/events/wb/$c"; done; '
                  '[ "$(counters_setup)" = "$* " ] || echo "second setup lost counters"; '
                  'counters_on "$@"; '
                  'sed -i "s/ 7 / 9 /" "$WB_TRACING/kprobe_profile"; counters_off "$@"')
        run = subprocess.run(["busybox", "sh", "-c", script, "sh", renamed.protocol,
                              os.path.join(wbtest.ROOT, "guest", "counters.sh")],
                             capture_output=True, text=True, check=True,
                             env=dict(os.environ, WB_TRACING=tracing))
        self.assertEqual(wbtest.read(os.path.join(tracing, "kprobe_events")),
                         "p:wb/qi_wait qi_submit_sync\n"
                         "p:wb/map_flush cache_tag_flush_range_np\n"
                         "p:wb/slow_allocs alloc_iova\n")
        self.assertEqual(run.stdout, '"qi_wait":2,"map_flush":0,"slow_allocs":0,')

    @unittest.skipUnless(shutil.which("busybox"), "the guest's busybox is not installed")
    def test_counters_follow_renamed_counters(self):
        """guest/counters.sh prints the invalidation counts under the
        protocol's names (with the guest's busybox: its awk program is
        busybox awk's)."""
        renamed = wbtest.Renamed({"WB_COUNT_PAGES": "inv_pages", "WB_COUNT_LOST": "dropped",
                                  "WB_COUNT_WHOLE": "domain_wide"})
        self.addCleanup(renamed.close)
        trace = os.path.join(renamed.dir, "trace")
        os.makedirs(os.path.join(renamed.dir, "event"))
        open(os.path.join(renamed.dir, "event", "enable"), "w").close()
        with open(trace, "w") as out:
            out.write("# entries-in-buffer/entries-written: 2/3   #P:1\n"
                      " x-1 [000] 1.0: qi_submit: iotlb_inv dmar0: 0x32 0x1 0x0 0x0\n"
                      " x-1 [000] 1.0: qi_submit: iotlb_inv dmar0: 0x22 0x1 0x0 0x0\n")
        script = ('. "$1"; . "$2"; QI_TRACE="$3"; QI_EVENT="$3/event"; invalidations_off')
        run = subprocess.run(["busybox", "sh", "-c", script, "sh", renamed.protocol,
                              os.path.join(wbtest.ROOT, "guest", "counters.sh"), renamed.dir],
                             capture_output=True, text=True, check=True)
        self.assertEqual(run.stdout, '"inv_pages":2,"domain_wide":1,"dropped":1,')
        # counted_lost (bench.sh: the run failed) reads the renamed member.
        lost = subprocess.run(["busybox", "sh", "-c", '. "$1"; . "$2"; for m in "$3" "$4" "$5"; '
                               'do counted_lost "$m" && echo lost || echo kept; done', "sh",
                               renamed.protocol, os.path.join(wbtest.ROOT, "guest", "counters.sh"),
                               run.stdout, '"dropped":0,', '"lost":3,'],
                              capture_output=True, text=True, check=True)
        self.assertEqual(lost.stdout.split(), ["lost", "kept", "kept"])


# What the guest writes that the host reads, each under its protocol name.
WRITTEN = ("WB_JOB_MARKER", "WB_END_MARKER", "WB_TRACE_START", "WB_KIND_MATRIX",
           "WB_KIND_RUN", "WB_KIND_PLAN", "WB_KIND_WORKLOAD")


class GuestWritesTest(unittest.TestCase):
    """The guest writes the markers and JSON kinds only through
    guest/objects.sh, and those follow a rename in protocol.sh."""

    def test_objects_follow_renamed_markers_and_kinds(self):
        renamed = wbtest.Renamed({"WB_JOB_MARKER": "# wb: steps=", "WB_END_MARKER": "# wb: done=",
                                  "WB_TRACE_START": "wb: go", "WB_KIND_MATRIX": "asked",
                                  "WB_KIND_RUN": "result", "WB_KIND_PLAN": "planned",
                                  "WB_KIND_WORKLOAD": "traffic"})
        self.addCleanup(renamed.close)
        console = os.path.join(renamed.dir, "console.log")
        with open(console, "w") as out:
            out.write('# {"run":1}\n# {"result":2}\n')
        script = (""". "$1"; . "$2"; job_header bench cpus=1; trace_start; """
                  """matrix_object '{}' '"tool":"t"'; run_object '{}' '"rc":0'; """
                  """plan_object '["w"]'; workload_object w '"rc":0'; job_end 0; run_objects "$3" """)
        shell = ["busybox", "sh"] if shutil.which("busybox") else ["sh"]
        run = subprocess.run([*shell, "-c", script, "sh", renamed.protocol,
                              os.path.join(wbtest.ROOT, "guest", "objects.sh"), console],
                             capture_output=True, text=True, check=True)
        self.assertEqual(run.stdout.splitlines(), [
            "# wb: steps=bench cpus=1", "# wb: go", '# {"asked":{},"tool":"t"}',
            '# {"result":{},"rc":0}', '# {"planned":["w"]}', '# {"traffic":"w","rc":0}',
            "# wb: done=0", '# {"result":2}'])

    def test_nothing_else_in_the_guest_writes_them(self):
        """No other guest or kit file names a marker or kind, by its variable
        or by its value, or prints a JSON object line, and none but
        counters.sh names a counter: a step that did would not follow a
        rename (breaks: bench.sh printing its run object itself, or reading
        the lost-events member as "lost")."""
        values = protocol.load(wbtest.PROTOCOL)
        guest, hw = os.path.join(wbtest.ROOT, "guest"), os.path.join(wbtest.ROOT, "hw")
        files = [os.path.join(guest, "init")] + [
            os.path.join(d, f)
            for d in (guest, os.path.join(guest, "steps"), hw, os.path.join(hw, "lib"))
            for f in sorted(os.listdir(d)) if f.endswith(".sh")]
        forbidden = [re.escape("# {")] + [re.escape(name) for name in WRITTEN] + [
            re.escape(values[name].lstrip("# ")) for name in WRITTEN
            if not name.startswith("WB_KIND_")] + [
            re.escape('{"%s":' % values[name]) for name in WRITTEN if name.startswith("WB_KIND_")]
        counters = re.compile("|".join(re.escape('"%s":' % value) for name, value in values.items()
                                       if name.startswith("WB_COUNT_")) + r"|\bWB_COUNT_")
        pattern = re.compile("|".join(forbidden))
        found = []
        for path in files:
            if os.path.basename(path) in ("protocol.sh", "objects.sh"):
                continue
            own_counters = os.path.basename(path) == "counters.sh"
            for number, line in enumerate(wbtest.read(path).splitlines(), 1):
                if line.lstrip().startswith("#"):
                    continue
                if pattern.search(line) or (not own_counters and counters.search(line)):
                    found.append(f"{os.path.relpath(path, wbtest.ROOT)}:{number}: {line.strip()}")
        self.assertEqual(found, [])


class DataTest(unittest.TestCase):
    """The data that names modes names the protocol's roles; configs/boots'
    other columns name what exists."""

    def arch_modes(self, arch):
        text = wbtest.read(os.path.join(wbtest.ROOT, "archs", arch + ".sh"))
        return set(re.findall(r"\bappend_([a-z0-9_]+)=", text)) - {"all"}

    @staticmethod
    def rows(name):
        text = wbtest.read(os.path.join(wbtest.ROOT, "configs", name))
        return [line.split() for line in text.splitlines()
                if line.strip() and not line.startswith("#")]

    def test_archs_define_protocol_modes(self):
        self.assertEqual(self.arch_modes("x86_64"), set(protocol.ROLES))
        self.assertLessEqual(self.arch_modes("arm64"), set(protocol.ROLES))

    def test_boots_name_what_exists(self):
        kernels = {tuple(row[0].split("/")[:1] + [row[2]]) for row in self.rows("kernels")}
        for row in self.rows("boots"):
            label, arch, kernel, role, suites, devices, seconds = row[:7]
            with self.subTest(boot=label):
                self.assertIn(role, protocol.ROLES)
                self.assertIn(role, self.arch_modes(arch))
                self.assertIn((kernel, arch), kernels)
                # the kernels make check boots (check-<arch>, check-pristine-<arch>,
                # check-debug-tests): another's rows would never run
                self.assertIn(kernel, ("patched", "pristine", "debug"))
                self.assertIn(suites, ("kunit", "-"))
                self.assertLessEqual(set(devices.split(",")), {"-", "nvme", "nopt", "icount"})
                # nopt is a property of VT-d's QEMU device (scripts/lib.sh's devices_qemu)
                if "nopt" in devices.split(","):
                    self.assertIn("intel-iommu", wbtest.read(
                        os.path.join(wbtest.ROOT, "archs", arch + ".sh")))
                self.assertTrue(seconds == "-" or seconds.isdigit(), seconds)

    def test_a_renamed_mode_keeps_its_facts(self):
        """scripts/lib.sh maps a mode's name to its role, which archs/ key
        their facts by: a mode renamed in guest/protocol.sh alone still
        boots with its facts (boot.sh's lookup), and its role's name is the
        new one (check/boots.sh, check/report.sh)."""
        renamed = wbtest.Renamed({"WB_MODE_LAZY": "fq"})
        self.addCleanup(renamed.close)
        script = ('. "$1"; . "$2"; arch_facts x86_64; role=$(mode_role fq); '
                  'facts=append_$role; echo "$role ${!facts} $(mode_name lazy)"; '
                  'mode_role lazy || echo "lazy is no name"')
        run = subprocess.run(["bash", "-c", script, "sh", os.path.join(wbtest.SCRIPTS, "lib.sh"),
                              renamed.protocol], capture_output=True, text=True, check=True)
        self.assertEqual(run.stdout, "lazy intel_iommu=on iommu.strict=0 fq\nlazy is no name\n")


class FaultsLineTest(unittest.TestCase):
    """FAULTS must match what wb_dma_unmap.unmapped_iova_faults prints: if
    the module's text changes, its result would vanish from make check."""

    def module_lines(self):
        """The case's kunit_info() lines as KUnit prints them, counts
        filled in."""
        source = wbtest.read(os.path.join(wbtest.ROOT, "modules", "wb_dma_test",
                                          "wb_dma_test.c"))
        case = protocol.VALUES["WB_FAULTS_LINE"].split(":")[0]
        body = re.search(r"\nstatic void " + case + r"\(struct kunit \*test\)\n\{\n(.*?)\n\}\n",
                         source, re.S)
        self.assertIsNotNone(body, f"no function {case} in the module")
        formats = re.findall(r'kunit_info\(test, "([^"]*)"', body.group(1))
        return ["    # " + case + ": " + re.sub(r"%[a-z]+", "2", f).replace("\\n", "")
                for f in formats]

    def test_each_mode_line_of_the_module_matches(self):
        modes = {m.group(1) for m in map(protocol.FAULTS.search, self.module_lines()) if m}
        self.assertEqual(modes, {"lazy", "strict"})

    def test_counts_are_captured(self):
        match = protocol.FAULTS.search("    # unmapped_iova_faults: strict: stale-IOVA faults "
                                       "seen 1 of 2 expected, 40 bytes touched")
        self.assertEqual(match.groups(), ("strict", "1", "2", "40"))


class ConsolesTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def touch(self, *names):
        for name in names:
            open(os.path.join(self.dir, name), "w").close()

    def test_modes_in_protocol_order_one_thread_first(self):
        direct, lazy, strict = protocol.MODE_DIRECT, protocol.MODE_LAZY, protocol.MODE_STRICT
        self.touch(f"{strict}.log", f"{direct}-smp.log", f"{direct}.log", f"{lazy}.log.qemu",
                   f"{lazy}.log")
        self.assertEqual([(m, os.path.basename(p)) for m, p in protocol.consoles(self.dir)],
                         [(direct, f"{direct}.log"), (direct, f"{direct}-smp.log"),
                          (lazy, f"{lazy}.log"), (strict, f"{strict}.log")])

    def test_unknown_mode_is_an_error(self):
        self.touch(f"{protocol.MODE_DIRECT}.log", "nested.log")
        with self.assertRaises(SystemExit) as err:
            protocol.consoles(self.dir)
        self.assertIn("nested.log: IOMMU mode 'nested' is not one of WB_MODES",
                      str(err.exception))

    def test_missing_directory_has_no_consoles(self):
        self.assertEqual(protocol.consoles(os.path.join(self.dir, "none")), [])


# Every value a guest writes, renamed: what a rename in guest/protocol.sh
# alone must be enough for.
EVERY_RENAME = {
    "WB_MODE_DIRECT": "none", "WB_MODE_LAZY": "fq", "WB_MODE_STRICT": "sync",
    "WB_MODE_CM": "vcm", "WB_JOB_MARKER": "# wb: steps=", "WB_END_MARKER": "# wb: done=",
    "WB_TRACE_START": "wb: go", "WB_KIND_MATRIX": "asked", "WB_KIND_RUN": "measured",
    "WB_KIND_PLAN": "planned", "WB_KIND_WORKLOAD": "traffic", "WB_COUNT_WAIT": "qi_wait",
    "WB_COUNT_MAP_FLUSH": "map_flush", "WB_COUNT_ALLOC": "slow_allocs",
    "WB_COUNT_PAGES": "inv_pages", "WB_COUNT_WHOLE": "domain_wide", "WB_COUNT_LOST": "dropped"}


@unittest.skipIf(os.environ.get("WB_RENAMED_COPY"), "already in the renamed copy")
class RenameEverywhereTest(unittest.TestCase):

    def test_a_rename_in_protocol_sh_alone_keeps_every_test(self):
        """A copy of the workbench whose guest/protocol.sh alone renames
        every mode, marker, kind and counter passes its unit tests: the
        scripts follow, and the saved fixtures are rewritten on the way in
        (fixtures.py). Break: a test or fixture reader naming "lazy"."""
        names = {name for name in protocol.VALUES if name.startswith(
            ("WB_MODE_", "WB_KIND_", "WB_COUNT_")) and name != "WB_COUNTED"}
        names |= {"WB_JOB_MARKER", "WB_END_MARKER", "WB_TRACE_START"}
        self.assertEqual(set(EVERY_RENAME), names, "rename every value a guest writes")
        renamed = wbtest.Renamed(EVERY_RENAME)
        self.addCleanup(renamed.close)
        copy = os.path.join(renamed.dir, "w")
        wbtest.copy_workbench(copy, wbtest.read(renamed.protocol))
        for part in ("tests", "modules", "hw"):
            if os.path.isdir(os.path.join(wbtest.ROOT, part)):
                shutil.copytree(os.path.join(wbtest.ROOT, part), os.path.join(copy, part),
                                symlinks=True)
        run = subprocess.run([sys.executable, "-B", "-m", "unittest", "discover", "-s",
                              "tests/results", "-p", "test_*.py"], cwd=copy,
                             capture_output=True, text=True,
                             env=dict(os.environ, WB_RENAMED_COPY="1"))
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()
