# SPDX-License-Identifier: GPL-2.0
"""Tests of the shell side of IOMMU mode roles and of the scripts that boot
by configs/boots: scripts/lib.sh's mode_role and mode_name (and
guest/lib.sh's mode_name), check/boots.sh (its rows checked before any
boot, each boot under its mode's name, its devices column as QEMU options
and a clock) and run/accel.sh, in a copy of the workbench whose boot.sh and test runner are
stand-ins that only say how they were called."""

import os
import shutil
import subprocess
import tempfile
import unittest

import wbtest
import protocol

# check/test.sh, run/boot.sh and guest-results.py as stand-ins: each call
# on a line of $CALLS, boot.sh's with the QEMU options it was given.
TEST_SH = '#!/bin/bash\nshift 2\nexec "$@"\n'
BOOT_SH = '#!/bin/bash\necho "boot $* qemu=[${WB_QEMU_ARGS:-}]" >>"$CALLS"\n'
GUEST_RESULTS = '#!/bin/bash\necho "results $*" >>"$CALLS"\n'


class RolesTest(unittest.TestCase):

    def shell(self, script, protocol_file=wbtest.PROTOCOL):
        return subprocess.run(["bash", "-c", '. "$1"; . "$2"; ' + script, "sh",
                               os.path.join(wbtest.SCRIPTS, "lib.sh"), protocol_file],
                              capture_output=True, text=True).stdout.split()

    def test_a_mode_variable_from_the_environment_is_no_role(self):
        """Only WB_MODES's modes have roles: a WB_MODE_<ROLE> set outside
        guest/protocol.sh (here in the script) is neither."""
        self.assertEqual(self.shell("WB_MODE_NESTED=nested; mode_name nested || echo no; "
                                    "mode_role nested || echo no"), ["no", "no"])

    def test_every_role_and_name_both_ways(self):
        import protocol
        renames = {"direct": "none", "lazy": "fq", "strict": "sync", "cm": "vcm"}
        renamed = wbtest.Renamed({f"WB_MODE_{role.upper()}": name
                                  for role, name in renames.items()})
        self.addCleanup(renamed.close)
        for names, protocol_file in ((protocol.ROLES, wbtest.PROTOCOL),
                                     (renames, renamed.protocol)):
            for role, name in names.items():
                with self.subTest(role=role, name=name):
                    self.assertEqual(self.shell(f"mode_name {role}; mode_role {name}",
                                                protocol_file), [name, role])
        self.assertEqual(self.shell("mode_name nested || echo no; mode_role nested || echo no"),
                         ["no", "no"])

    def test_the_guest_names_roles_as_the_host(self):
        """guest/lib.sh's mode_name (wb.hwkit_unset= names roles) gives the
        names scripts/lib.sh's does, a renamed protocol's too."""
        import protocol
        renamed = wbtest.Renamed({"WB_MODE_DIRECT": "none", "WB_MODE_CM": "vcm"})
        self.addCleanup(renamed.close)
        for protocol_file in (wbtest.PROTOCOL, renamed.protocol):
            wb_dir = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, wb_dir)
            shutil.copy(protocol_file, os.path.join(wb_dir, "protocol.sh"))
            shutil.copy(os.path.join(wbtest.ROOT, "guest", "objects.sh"), wb_dir)
            open(os.path.join(wb_dir, "ktap_helpers.sh"), "w").close()
            for role in list(protocol.ROLES) + ["off"]:
                with self.subTest(protocol=protocol_file, role=role):
                    guest = subprocess.run(
                        ["sh", "-c", '. "$1"; mode_name "$2" || echo no', "sh",
                         os.path.join(wbtest.ROOT, "guest", "lib.sh"), role],
                        capture_output=True, text=True, env=dict(os.environ, WB_DIR=wb_dir))
                    host = self.shell(f"mode_name {role} || echo no", protocol_file)
                    self.assertEqual(guest.stdout.split(), host, guest.stderr)


class Workbench(unittest.TestCase):
    """A copied workbench with stand-ins; <renames> as for wbtest.Renamed."""

    renames = {}

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        text = None
        if self.renames:
            renamed = wbtest.Renamed(self.renames)
            self.addCleanup(renamed.close)
            text = wbtest.read(renamed.protocol)
        self.scripts = wbtest.copy_workbench(os.path.join(self.dir, "w"), text)
        wbtest.stand_in(self.scripts, "check/test.sh", TEST_SH)
        wbtest.stand_in(self.scripts, "run/boot.sh", BOOT_SH)
        wbtest.stand_in(self.scripts, "results/guest-results.py", GUEST_RESULTS)
        self.calls = os.path.join(self.dir, "calls")
        self.results = os.path.join(self.dir, "check", "results")
        os.makedirs(os.path.dirname(self.results))

    def run_boots(self, kernel, arch, table=None):
        table = table or os.path.join(self.scripts, "..", "configs", "boots")
        run = subprocess.run(["bash", os.path.join(self.scripts, "check", "boots.sh"),
                              self.results, table, kernel, arch, "IMAGE", "INITRD", "TREE"],
                             capture_output=True, text=True,
                             env=dict(os.environ, CALLS=self.calls))
        calls = wbtest.read(self.calls).splitlines() if os.path.exists(self.calls) else []
        return run.returncode, run.stderr, calls

    def table(self, *rows):
        path = os.path.join(self.dir, "boots")
        with open(path, "w") as out:
            out.write("".join(row + "\n" for row in rows))
        return path


class BootsTest(Workbench):

    def test_each_row_boots_under_its_mode_s_name(self):
        status, _, calls = self.run_boots("debug", "x86_64")
        self.assertEqual(status, 0)
        self.assertEqual([call.split()[1:3] for call in calls if call.startswith("boot")],
                         [["x86_64", protocol.MODE_LAZY], ["x86_64", protocol.MODE_STRICT],
                          ["x86_64", protocol.MODE_CM]])

    def test_a_row_becomes_one_boot_and_its_results(self):
        """Every column reaches the boot: devices as QEMU options, the time
        limit (- is 300 s), KUnit enabled before the row's command line,
        whether the built-in suites count; an old console is removed."""
        logs = os.path.dirname(self.results)
        with open(os.path.join(logs, "n.log"), "w") as out:
            out.write("an earlier run's console\n")
        table = self.table("n x86_64 debug lazy - nvme - wb.job=modules",
                           "k x86_64 debug strict kunit - 60 wb.job=check")
        status, err, calls = self.run_boots("debug", "x86_64", table)
        self.assertEqual(status, 0, err)
        self.assertFalse(os.path.exists(os.path.join(logs, "n.log")))
        self.assertEqual(calls, [
            f"boot x86_64 {protocol.MODE_LAZY} IMAGE INITRD {logs}/n.log 300 kunit.enable=1 "
            "wb.job=modules "
            "qemu=[-device nvme,serial=wb-nvme,drive=nvm -drive if=none,id=nvm,driver=null-co]",
            f"results --no-kunit TREE {logs}/n.log n {self.results}",
            f"boot x86_64 {protocol.MODE_STRICT} IMAGE INITRD {logs}/k.log 60 kunit.enable=1 "
            "wb.job=check qemu=[]",
            f"results TREE {logs}/k.log k {self.results}"])

    def test_a_bad_row_stops_every_boot(self):
        good = "a x86_64 debug lazy kunit - - wb.job=check"
        for bad, why in (("b x86_64 debug lazy kuint - - x", "suites is kunit or -"),
                         ("b x86_64 debug lazy - - 3s x", "seconds '3s'"),
                         ("b x86_64 debug fq - - - x", "unknown mode role 'fq'"),
                         ("b x86_64 debug lazy - nvmx - x", "unknown devices 'nvmx'"),
                         ("b arm64 debug lazy - nvme - x", "arm64 has no NVMe")):
            with self.subTest(bad=bad):
                arch = bad.split()[1]
                status, err, calls = self.run_boots("debug", arch, self.table(good, bad))
                self.assertEqual((status, calls), (1, []), err)
                self.assertIn(why, err)

    def accel(self, flags, kvm_writable, boots=True):
        cpuinfo = os.path.join(self.dir, "cpuinfo")
        with open(cpuinfo, "w") as out:
            out.write(f"flags : fpu {flags} sse\n")
        # No /dev/kvm stands for one not writable: root writes a read-only file.
        kvm = os.path.join(self.dir, "kvm" if kvm_writable else "no-kvm")
        if kvm_writable:
            open(kvm, "w").close()
        if not boots:
            wbtest.stand_in(self.scripts, "run/boot.sh", "#!/bin/bash\nexit 1\n")
        return subprocess.run(["bash", os.path.join(self.scripts, "run", "accel.sh"),
                               "K", "I", "L"], capture_output=True, text=True,
                              env=dict(os.environ, CALLS=self.calls, WB_CPUINFO=cpuinfo,
                                       WB_KVM_DEVICE=kvm))

    def test_accel_takes_tcg_without_kvm(self):
        run = self.accel("vmx", False)
        self.assertEqual(run.stdout, "tcg\n")
        self.assertIn("/dev/kvm is missing or not writable", run.stderr)

    def test_accel_takes_tcg_without_vmx_or_a_probe_that_boots(self):
        for flags, boots in (("lm", True), ("vmx", False)):
            with self.subTest(flags=flags, boots=boots):
                run = self.accel(flags, True, boots)
                self.assertEqual((run.returncode, run.stdout), (0, "tcg\n"), run.stderr)

    def test_accel_probes_kvm_in_the_direct_mode(self):
        cpuinfo = os.path.join(self.dir, "cpuinfo")
        kvm = os.path.join(self.dir, "kvm")
        for path, text in ((cpuinfo, "flags : fpu vmx sse\n"), (kvm, "")):
            with open(path, "w") as out:
                out.write(text)
        run = subprocess.run(["bash", os.path.join(self.scripts, "run", "accel.sh"),
                              "K", "I", "L"], capture_output=True, text=True,
                             env=dict(os.environ, CALLS=self.calls, WB_CPUINFO=cpuinfo,
                                      WB_KVM_DEVICE=kvm))
        self.assertEqual((run.returncode, run.stdout), (0, "kvm\n"), run.stderr)
        self.assertEqual(wbtest.read(self.calls),
                         f"boot x86_64 {protocol.MODE_DIRECT} K I L 60 wb.job=probe qemu=[]\n")


class DevicesTest(Workbench):
    """configs/boots' devices column: QEMU options on one line (nvme, nopt)
    and the clock (icount: one vCPU on -icount, else two on host time),
    checked with the other columns before any boot."""

    def setUp(self):
        super().setUp()
        wbtest.stand_in(self.scripts, "run/boot.sh",
                        '#!/bin/bash\necho "boot $7 qemu=[${WB_QEMU_ARGS:-}] '
                        'smp=${WB_SMP-unset} icount=${WB_ICOUNT-unset}" >>"$CALLS"\n')

    def test_devices_reach_the_boot(self):
        table = self.table("a x86_64 debug lazy - nopt,icount - wb.job=hwkit",
                           "b x86_64 debug lazy - nvme,nopt - wb.job=b",
                           "c x86_64 debug direct - - - wb.job=c",
                           "d arm64 debug strict - icount - wb.job=d")
        nvme = "-device nvme,serial=wb-nvme,drive=nvm -drive if=none,id=nvm,driver=null-co"
        for arch, boots in (
                ("x86_64", ["boot kunit.enable=1 wb.job=hwkit qemu=[-global intel-iommu.pt=off] "
                            "smp=1 icount=1",
                            f"boot kunit.enable=1 wb.job=b qemu=[{nvme} -global intel-iommu.pt=off] "
                            "smp=2 icount=",
                            "boot kunit.enable=1 wb.job=c qemu=[] smp=2 icount="]),
                ("arm64", ["boot kunit.enable=1 wb.job=d qemu=[] smp=1 icount=1"])):
            with self.subTest(arch=arch):
                if os.path.exists(self.calls):
                    os.remove(self.calls)
                status, err, calls = self.run_boots("debug", arch, table)
                self.assertEqual(status, 0, err)
                self.assertEqual([c for c in calls if c.startswith("boot")], boots)

    def test_devices_an_architecture_lacks_stop_every_boot(self):
        good = "a arm64 debug lazy kunit - - wb.job=check"
        for bad, why in (("b arm64 debug lazy - nopt - x", "arm64 has no VT-d"),
                         ("b arm64 debug lazy - icount,nvme - x", "arm64 has no NVMe"),
                         ("b arm64 debug lazy - icount,pt - x", "unknown devices 'pt'")):
            with self.subTest(bad=bad):
                status, err, calls = self.run_boots("debug", "arm64", self.table(good, bad))
                self.assertEqual((status, calls), (1, []), err)
                self.assertIn(why, err)
                self.assertIn("b: devices", err)

    def test_configs_boots_hwkit_rows(self):
        """The kit's rows of configs/boots: identity unset on VT-d without
        pass-through, one vCPU on -icount; the direct role's boot by the
        direct mode's name."""
        import protocol
        status, err, calls = self.run_boots("patched", "x86_64")
        self.assertEqual(status, 0, err)
        hwkit = [c for c in calls if "wb.job=hwkit" in c]
        self.assertEqual(len(hwkit), 2, calls)
        self.assertIn("qemu=[-global intel-iommu.pt=off] smp=1 icount=1", hwkit[0])
        self.assertIn("wb.hwkit_unset=direct", hwkit[0])
        self.assertIn("wb.hwkit=noiommu qemu=[] smp=2 icount=", hwkit[1])
        with open(os.path.join(os.path.dirname(self.results),
                               "boots-patched-x86_64.rows")) as rows:
            self.assertIn(f"x86_64-hwkit-off {protocol.MODE_DIRECT} - 300 WB_SMP=2 WB_ICOUNT= ",
                          rows.read())


class RenamedBootsTest(Workbench):
    """A mode renamed in guest/protocol.sh alone: configs/boots' rows, by
    role, boot under the new name."""

    renames = {"WB_MODE_DIRECT": "none", "WB_MODE_LAZY": "fq", "WB_MODE_STRICT": "sync",
               "WB_MODE_CM": "vcm"}

    def test_rows_boot_under_the_new_names(self):
        status, err, calls = self.run_boots("debug", "x86_64")
        self.assertEqual(status, 0, err)
        self.assertEqual([call.split()[2] for call in calls if call.startswith("boot")],
                         ["fq", "sync", "vcm"])

    def test_accel_probes_under_the_new_name(self):
        cpuinfo = os.path.join(self.dir, "cpuinfo")
        with open(cpuinfo, "w") as out:
            out.write("flags : svm\n")
        run = subprocess.run(["bash", os.path.join(self.scripts, "run", "accel.sh"),
                              "K", "I", "L"], capture_output=True, text=True,
                             env=dict(os.environ, CALLS=self.calls, WB_CPUINFO=cpuinfo,
                                      WB_KVM_DEVICE=cpuinfo))
        self.assertEqual(run.stdout, "kvm\n", run.stderr)
        self.assertIn("boot x86_64 none ", wbtest.read(self.calls))


if __name__ == "__main__":
    unittest.main()
