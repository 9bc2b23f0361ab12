#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the hardware kit's runner (hw/hw-run.sh) on a fake machine: a
kit laid out by scripts/build/hw-kit.sh with stand-in tools (bin/), a fake
sysfs and /proc whose kernel part tests/hw/fake_kernel.py plays. Refusals
touch nothing; a normal end, a SIGTERM and --restore after a SIGKILL give
the device its driver, driver_override and group type back; modes switch
the group's type, and a type the kernel will not set is said and skipped;
report.py reads what the runner writes as it reads a guest's consoles; the
runner packed in a guest's initramfs runs as the kit's does.
No kernel tree, no root, no guest.

Usage: python3 -B -m unittest discover -s tests/hw
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
ADDR = "0000:00:04.0"
OTHER = "0000:00:05.0"
# The matrix of most tests: small, quick (the stand-in tool sleeps -s).
MATRIX = {"MODES": "off,lazy,strict", "GRANULES": "1,16", "THREADS": "1,2", "DEPTHS": "1",
          "RUN_SECONDS": "1"}


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def link(target, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


class FakeMachine(unittest.TestCase):
    """A kit and a machine of 4 CPUs with a VT-d, the device ADDR alone in
    group 7 (DMA-FQ), bound to e1000e unless a test says otherwise."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="wb-hw-")
        self.addCleanup(shutil.rmtree, self.tmp)
        tools = os.path.join(self.tmp, "tools")
        os.makedirs(tools)
        shutil.copy(os.path.join(HERE, "bin", "dma_map_benchmark"), tools)
        shutil.copy(os.path.join(HERE, "bin", "dma_map_benchmark"),
                    os.path.join(tools, "dma_map_benchmark-7.3"))
        put(os.path.join(self.tmp, "randread"), "#!/bin/sh")
        self.kit = os.path.join(self.tmp, "kit")
        subprocess.run([os.path.join(ROOT, "scripts", "build", "hw-kit.sh"), tools,
                        os.path.join(self.tmp, "randread"),
                        os.path.join(HERE, "ktap_helpers.sh"), self.kit],
                       check=True, capture_output=True)
        self.sys = os.path.join(self.tmp, "machine", "sys")
        self.proc = os.path.join(self.tmp, "machine", "proc")
        self.out = os.path.join(self.tmp, "out")
        self.machine()

    def machine(self, iommu=True):
        s = self.sys
        put(f"{s}/devices/system/cpu/online", "0-3")
        put(f"{s}/devices/system/node/online", "0-1")
        put(f"{s}/bus/pci/drivers_probe", "")
        for driver in ("e1000e", "dma_map_benchmark"):
            put(f"{s}/bus/pci/drivers/{driver}/unbind", "")
        if iommu:
            put(f"{s}/class/iommu/dmar0/intel-iommu/cap", "d2008c40660462")
            put(f"{s}/class/iommu/dmar0/intel-iommu/ecap", "f050da")
            put(f"{s}/class/iommu/dmar0/intel-iommu/version", "1:0")
        self.device(ADDR, "e1000e", 7 if iommu else None)
        put(f"{self.proc}/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on")
        put(f"{self.proc}/cpuinfo", "processor\t: 0\nmodel name\t: Fake CPU @ 1 GHz")
        put(f"{self.proc}/mounts", "/dev/sda1 / ext4 rw 0 0")
        put(f"{self.proc}/swaps", "Filename\tType\tSize\tUsed\tPriority")

    def device(self, addr, driver, group, group_type="DMA-FQ"):
        dev = f"{self.sys}/bus/pci/devices/{addr}"
        put(f"{dev}/vendor", "0x8086")
        put(f"{dev}/device", "0x10d3")
        put(f"{dev}/driver_override", "(null)")
        put(os.path.join(self.tmp, "machine", "natural", addr), driver or "")
        if driver:
            link(f"../../../../bus/pci/drivers/{driver}", f"{dev}/driver")
        if group is not None:
            groups = f"{self.sys}/kernel/iommu_groups/{group}"
            if not os.path.exists(f"{groups}/type"):
                put(f"{groups}/type", group_type)
                put(os.path.join(self.tmp, "machine", "shadow", str(group)), group_type)
            link(f"../../../../kernel/iommu_groups/{group}", f"{dev}/iommu_group")
            link(f"../../../../bus/pci/devices/{addr}", f"{groups}/devices/{addr}")

    def interface(self, name):
        """A network interface of the device ADDR, as class/net links it."""
        net = f"{self.sys}/bus/pci/devices/{ADDR}/net/{name}"
        os.makedirs(net)
        link(os.path.relpath(net, f"{self.sys}/class/net"), f"{self.sys}/class/net/{name}")

    def needs_fake(self, command):
        """busybox sh runs its own applet of <command>, never the stand-in
        on PATH (tests/hw/bin): the case runs under dash and bash."""
        if os.environ.get("WB_TEST_SHELL", "sh").startswith("busybox"):
            self.skipTest(f"busybox sh runs its {command} applet, not the fake one")

    def env(self, **more):
        env = dict(os.environ, WB_SYSFS=self.sys, WB_PROC=self.proc,
                   WB_DEV=os.path.join(self.tmp, "machine", "dev"),
                   WB_STATE_DIR=os.path.join(self.tmp, "state"),
                   WB_SYSFS_HOOK=os.path.join(HERE, "fake_kernel.py"),
                   WB_FAKE_PIDS=os.path.join(self.tmp, "pids"),
                   PATH=os.path.join(HERE, "bin") + os.pathsep + os.environ["PATH"])
        for name in ("MODES", "MAPS", "GRANULES", "THREADS", "DEPTHS", "RUN_SECONDS", "WB_DIR",
                     "WB_ARGS", "WB_DEVICE"):
            env.pop(name, None)
        env.update(MATRIX)
        env.update(more)
        return env

    def command(self, *args):
        # WB_TEST_SHELL="busybox sh": the guests' shell (the kit runs there too).
        return [*os.environ.get("WB_TEST_SHELL", "sh").split(), os.path.join(self.kit, "hw-run.sh"),
                *args]

    def run_kit(self, *args, **env):
        return subprocess.run(self.command(*args, ADDR, self.out), env=self.env(**env),
                              capture_output=True, text=True, timeout=120)

    def driver(self, addr=ADDR):
        path = f"{self.sys}/bus/pci/devices/{addr}/driver"
        return os.path.basename(os.readlink(path)) if os.path.lexists(path) else None

    def read(self, path):
        with open(path) as f:
            return f.read().strip()

    def override(self):
        return self.read(f"{self.sys}/bus/pci/devices/{ADDR}/driver_override")

    def group_type(self):
        return self.read(f"{self.sys}/kernel/iommu_groups/7/type")

    def machine_json(self):
        with open(os.path.join(self.out, "machine.json")) as f:
            return json.load(f)

    def runs(self, mode):
        """The run objects of <mode>.log."""
        with open(os.path.join(self.out, f"{mode}.log")) as f:
            return [json.loads(line.strip()[2:]) for line in f
                    if line.strip().startswith('# {"run"')]

    def assert_given_back(self, driver="e1000e", override="(null)", group_type="DMA-FQ"):
        self.assertEqual(self.driver(), driver)
        self.assertEqual(self.override(), override)
        if group_type:
            self.assertEqual(self.group_type(), group_type)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "state", ADDR + ".state")))


class RefusalTest(FakeMachine):

    def assert_refused(self, run, says):
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn(says, run.stderr)
        self.assert_given_back()
        logs = os.listdir(self.out) if os.path.isdir(self.out) else []
        self.assertEqual([n for n in logs if n.endswith(".log")], [])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "machine", "events")))

    def test_a_device_with_a_driver_is_refused_without_take(self):
        self.assert_refused(self.run_kit(), "in use by driver e1000e: --take")

    def test_a_machine_without_an_iommu_is_refused(self):
        shutil.rmtree(os.path.join(self.tmp, "machine"))
        self.machine(iommu=False)
        run = self.run_kit("--take")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("no IOMMU", run.stderr)
        self.assert_given_back(group_type=None)
        self.assertEqual(self.machine_json()["machine"]["iommus"], [])

    def test_caching_mode_is_no_group_type(self):
        self.assert_refused(self.run_kit("--take", MODES="lazy,cm"), "property of the machine")

    def test_more_threads_than_cpus_are_refused(self):
        self.assert_refused(self.run_kit("--take", THREADS="1,8"), "8 threads on 4 CPUs")

    def test_a_mounted_block_device_is_refused(self):
        put(f"{self.sys}/class/block/sda/size", "0")
        self.assert_refused(self.run_kit("--take", "--block", "/dev/sda"), "is mounted")

    def test_an_unknown_tool_is_refused_before_the_device_is_taken(self):
        self.assert_refused(self.run_kit("--take", "--tool", "7.2"), "--tool 7.2: series or 7.3")

    def test_a_partition_held_is_refused(self):
        put(f"{self.sys}/class/block/sdc/sdc1/holders/md0/dev", "")
        self.assert_refused(self.run_kit("--take", "--block", "/dev/sdc"),
                            "(or a partition of it) is held by md0")

    def test_a_results_directory_of_an_earlier_run_is_refused(self):
        put(os.path.join(self.out, "lazy.log"), "an earlier run")
        run = self.run_kit("--take")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("holds an earlier run's results", run.stderr)
        self.assert_given_back()
        self.assertEqual(sorted(os.listdir(self.out)), ["lazy.log"])

    def test_a_refused_run_s_directory_is_taken_again(self):
        """A refusal leaves the machine's description and no results: the
        same directory serves the run that follows it."""
        self.assert_refused(self.run_kit(), "in use by driver e1000e: --take")
        self.assertEqual(os.listdir(self.out), ["machine.json"])
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_a_second_run_on_another_device_is_refused(self):
        put(os.path.join(self.tmp, "state", OTHER + ".state"), f"saved_device='{OTHER}'")
        self.assert_refused(self.run_kit("--take"), f"another run holds {OTHER}.state")

    def test_a_device_holding_a_mounted_disk_is_refused_even_with_take(self):
        disk = f"{self.sys}/devices/pci0000:00/{ADDR}/nvme/nvme0/nvme0n1"
        put(f"{disk}/size", "0")
        link(os.path.relpath(disk, f"{self.sys}/class/block"), f"{self.sys}/class/block/nvme0n1")
        put(f"{self.proc}/mounts", "/dev/nvme0n1p2 / ext4 rw 0 0")
        self.assert_refused(self.run_kit("--take"),
                            f"{ADDR} holds nvme0n1, which is mounted or swapped on: not even --take")

    def test_a_device_carrying_the_default_route_is_refused_even_with_take(self):
        self.interface("eth0")
        put(f"{self.proc}/net/route", "Iface\tDestination\tGateway\tFlags\n"
            "eth0\t00000000\t0101A8C0\t0003\neth0\t0001A8C0\t00000000\t0001")
        self.assert_refused(self.run_kit("--take"),
                            f"{ADDR}'s interface eth0 carries the default route: not even --take")

    def nvme_disk(self):
        disk = f"{self.sys}/devices/pci0000:00/{ADDR}/nvme/nvme0/nvme0n1"
        put(f"{disk}/dev", "259:0")
        put(f"{disk}/nvme0n1p2/dev", "259:2")
        link(os.path.relpath(disk, f"{self.sys}/class/block"), f"{self.sys}/class/block/nvme0n1")

    def test_a_device_holding_the_root_the_kernel_mounted_is_refused(self):
        """root= without an initramfs: /proc/mounts says /dev/root, only
        mountinfo's major:minor names the partition."""
        self.nvme_disk()
        put(f"{self.proc}/mounts", "/dev/root / ext4 rw 0 0")
        put(f"{self.proc}/self/mountinfo", "1 1 0:2 / / rw - rootfs rootfs rw\n"
            "22 1 259:2 / / rw,relatime - ext4 /dev/root rw")
        self.assert_refused(self.run_kit("--take"), f"{ADDR} holds nvme0n1, which is mounted")

    def test_a_device_with_a_path_of_the_mounted_multipath_root_is_refused(self):
        """Native NVMe multipath: the head nvme0n1 (mounted) is under the
        subsystem, only the hidden path nvme0c0n1 under the controller."""
        path = f"{self.sys}/devices/pci0000:00/{ADDR}/nvme/nvme0/nvme0c0n1"
        head = f"{self.sys}/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1"
        os.makedirs(path)
        put(f"{head}/dev", "259:0")
        put(f"{head}/nvme0n1p2/dev", "259:2")
        link(os.path.relpath(path, f"{head}/multipath"), f"{head}/multipath/nvme0c0n1")
        for disk in (path, head):
            link(os.path.relpath(disk, f"{self.sys}/class/block"),
                 f"{self.sys}/class/block/{os.path.basename(disk)}")
        put(f"{self.proc}/self/mountinfo", "22 1 259:2 / / rw,relatime - ext4 /dev/root rw")
        self.assert_refused(self.run_kit("--take"), f"{ADDR} holds nvme0n1, which is mounted")

    def test_a_device_holding_a_disk_a_process_has_open_is_refused(self):
        """QEMU opens a VM's disk without O_EXCL: only /proc/*/fd says."""
        self.nvme_disk()
        link(f"{self.tmp}/machine/dev/nvme0n1p1", f"{self.proc}/4242/fd/5")
        put(f"{self.proc}/4242/comm", "qemu-system-x86")
        os.makedirs(f"{self.proc}/1/fd")
        self.assert_refused(self.run_kit("--take"),
                            f"{ADDR} holds nvme0n1, which is open in process 4242 (qemu-system-x86)")

    def test_a_device_holding_a_claimed_disk_is_refused(self):
        """A ZFS pool or a VM claims a disk with no file naming it: the
        kernel refuses an exclusive open (the stand-in randread, EBUSY)."""
        self.nvme_disk()
        put(f"{self.tmp}/machine/dev/nvme0n1", "")
        busy = os.path.join(self.kit, "bin", "randread")
        put(busy, '#!/bin/sh\n[ "$2" != claim ] || { echo "Device or resource busy" >&2; exit 1; }')
        os.chmod(busy, 0o755)
        self.assert_refused(self.run_kit("--take"),
                            "refused an exclusive open, as a claimed disk is (Device or resource busy)")

    def test_a_device_under_the_bridge_with_the_default_route_is_refused(self):
        """eth0 is a port of bond0, which is a port of br0, the bridge that
        carries the route."""
        self.interface("eth0")
        for upper in ("bond0", "br0"):
            os.makedirs(f"{self.sys}/class/net/{upper}")
        link(f"{self.sys}/class/net/bond0", f"{self.sys}/class/net/eth0/upper_bond0")
        link(f"{self.sys}/class/net/br0", f"{self.sys}/class/net/bond0/upper_br0")
        put(f"{self.proc}/net/route", "Iface\tDestination\tGateway\tFlags\n"
            "br0\t00000000\t0101A8C0\t0003")
        self.assert_refused(self.run_kit("--take"),
                            "interface eth0 carries the default route (through br0)")

    def test_a_virtio_nic_with_the_default_route_is_refused(self):
        """virtio-net's interface is under virtioN/, not the PCI device's
        net/."""
        net = f"{self.sys}/devices/pci0000:00/{ADDR}/virtio0/net/eth0"
        os.makedirs(net)
        link(os.path.relpath(net, f"{self.sys}/class/net"), f"{self.sys}/class/net/eth0")
        put(f"{self.proc}/net/route", "Iface\tDestination\tGateway\tFlags\n"
            "eth0\t00000000\t0101A8C0\t0003")
        self.assert_refused(self.run_kit("--take"), "interface eth0 carries the default route")

    def test_a_group_shared_with_a_pcie_port_is_no_group_held(self):
        """A port's driver manages its own DMA: the kernel changes the
        group's type all the same."""
        put(f"{self.sys}/bus/pci/drivers/pcieport/unbind", "")
        self.device(OTHER, "pcieport", 7)
        run = self.run_kit("--take", MODES="strict")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back()
        self.assertEqual(self.driver(OTHER), "pcieport")

    def test_a_device_carrying_the_ipv6_default_route_is_refused(self):
        self.interface("eth0")
        put(f"{self.proc}/net/ipv6_route",
            "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
            "fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0")
        self.assert_refused(self.run_kit("--take"), "interface eth0 carries the default route")

    def test_a_device_whose_interface_routes_no_default_is_taken(self):
        self.interface("eth0")
        put(f"{self.proc}/net/route", "Iface\tDestination\tGateway\tFlags\n"
            "eth0\t0001A8C0\t00000000\t0001")
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back()

    def test_a_dma_mask_out_of_range_is_refused(self):
        self.assert_refused(self.run_kit("--take", DMA_BITS="65"), "DMA_BITS=65")

    def test_a_vfio_device_is_refused_even_with_take(self):
        dev = f"{self.sys}/bus/pci/devices/{ADDR}"
        os.unlink(f"{dev}/driver")
        put(f"{self.sys}/bus/pci/drivers/vfio-pci/unbind", "")
        link("../../../../bus/pci/drivers/vfio-pci", f"{dev}/driver")
        run = self.run_kit("--take")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("bound to vfio-pci", run.stderr)
        self.assertEqual(self.driver(), "vfio-pci")

    def test_a_physical_function_with_vfs_is_refused_even_with_take(self):
        put(f"{self.sys}/bus/pci/devices/{ADDR}/sriov_numvfs", "4")
        self.assert_refused(self.run_kit("--take"), "has 4 SR-IOV virtual functions")

    def test_a_nic_with_addresses_is_refused_without_take(self):
        self.needs_fake("ip")
        put(f"{self.sys}/class/net/eth1/flags", "0x1003")
        put(f"{self.sys}/class/net/eth1/addresses", "3: eth1    inet 192.0.2.1/24")
        put(f"{self.proc}/net/pktgen/pgctrl", "")
        # the benchmark device has no driver: only the NIC needs --take
        dev = f"{self.sys}/bus/pci/devices/{ADDR}"
        os.unlink(f"{dev}/driver")
        put(os.path.join(self.tmp, "machine", "natural", ADDR), "")
        run = self.run_kit("--nic", "eth1")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("eth1 carries addresses (in use): --take", run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "lazy.log")))

    def test_a_group_that_keeps_a_type_no_mode_asks_for_is_refused(self):
        self.device(OTHER, "e1000e", 7)
        self.assert_refused(self.run_kit("--take", MODES="off,strict"),
                            f"group 7 also holds {OTHER} (bound to e1000e), so it keeps its type DMA-FQ")

    def test_another_device_on_the_benchmark_driver_is_refused(self):
        self.device(OTHER, "dma_map_benchmark", 9)
        self.assert_refused(self.run_kit("--take"),
                            f"{OTHER} is bound to dma_map_benchmark, which serves one device")

    def test_a_nic_without_pktgen_is_refused(self):
        put(f"{self.sys}/class/net/eth1/flags", "0x1002")
        self.assert_refused(self.run_kit("--take", "--nic", "eth1"), "modprobe pktgen")

    def test_a_held_block_device_is_refused(self):
        put(f"{self.sys}/class/block/sdb/holders/dm-0/dev", "")
        self.assert_refused(self.run_kit("--take", "--block", "/dev/sdb"), "is held by dm-0")


class RunTest(FakeMachine):

    def test_each_mode_switches_the_group_and_everything_is_given_back(self):
        run = self.run_kit("--take")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back()
        for mode, group_type in (("off", "identity"), ("lazy", "DMA-FQ"), ("strict", "DMA")):
            runs = self.runs(mode)
            self.assertEqual(len(runs), 4, mode)
            self.assertEqual({r["domain"] for r in runs}, {group_type}, mode)
            self.assertEqual({r["rc"] for r in runs}, {0})
        described = self.machine_json()
        self.assertEqual(described["modes"]["strict"], {"type": "DMA", "rc": 0})
        self.assertEqual(described["tool"], "series")
        self.assertEqual(described["machine"]["cpus"], 4)
        self.assertEqual(described["machine"]["cpu"], "Fake CPU @ 1 GHz")
        self.assertEqual(described["machine"]["numa_nodes"], 2)
        self.assertEqual(described["device_found"], {"driver": "e1000e", "type": "DMA-FQ"})
        # Written at the end of the last mode, the device still the kit's.
        self.assertEqual(described["devices"], [
            {"address": ADDR, "id": "0x8086:0x10d3", "driver": "dma_map_benchmark", "group": 7,
             "type": "DMA"}])
        vtd = described["machine"]["iommus"][0]
        self.assertEqual((vtd["caching_mode"], vtd["page_walk_coherency"], vtd["pass_through"]),
                         (False, False, True))
        self.assertEqual(described["kernel"]["cmdline"], "BOOT_IMAGE=/vmlinuz intel_iommu=on")
        self.assertEqual(described["matrix"]["threads"], [1, 2])
        events = self.read(os.path.join(self.tmp, "machine", "events")).splitlines()
        # The group's type changes only while nothing is bound to the device.
        self.assertNotIn("refused", " ".join(events))
        self.assertEqual(events[-2:], ["override 0000:00:04.0 (null)", "bind 0000:00:04.0 e1000e"])

    def test_a_nic_that_was_down_is_down_again(self):
        """The workload step brings the --nic interface up and adds it to
        pktgen's first thread: the end takes it down again and off the
        thread. (The fake pktgen reports no result: its tests fail, exit 3.)"""
        self.needs_fake("ip")
        net = f"{self.sys}/class/net/eth1"
        put(f"{net}/flags", "0x1002")
        put(f"{self.proc}/net/pktgen/pgctrl", "")
        run = self.run_kit("--take", "--nic", "eth1", MODES="lazy", GRANULES="1")
        self.assertEqual(run.returncode, 3, run.stderr)
        log = self.read(os.path.join(self.out, "lazy.log"))
        # The step ran against the NIC: up, added to pktgen, started.
        self.assertIn("pktgen on eth1 stalled or failed", log)
        self.assertEqual(self.read(f"{self.proc}/net/pktgen/pgctrl"), "start")
        self.assertEqual(self.read(f"{net}/flags"), "0x1002")
        self.assertEqual(self.read(f"{self.proc}/net/pktgen/kpktgend_0"), "rem_device_all")
        self.assert_given_back()

    def test_a_nic_that_was_up_stays_up(self):
        self.needs_fake("ip")
        net = f"{self.sys}/class/net/eth1"
        put(f"{net}/flags", "0x1003")
        put(f"{net}/carrier", "1")
        put(f"{self.proc}/net/pktgen/pgctrl", "")
        run = self.run_kit("--take", "--nic", "eth1", MODES="lazy", GRANULES="1")
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertEqual(self.read(f"{net}/flags"), "0x1003")

    def test_scalable_mode_s_coherency_is_described(self):
        """Linux reads ecap SMPWC (bit 48), not C (bit 0), for a unit it runs
        in scalable mode (SMTS, bit 43)."""
        put(f"{self.sys}/class/iommu/dmar0/intel-iommu/ecap", "1080000f050da")
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)
        vtd = self.machine_json()["machine"]["iommus"][0]
        self.assertEqual((vtd["page_walk_coherency"], vtd["scalable_mode_supported"],
                          vtd["sm_page_walk_coherency"]), (False, True, True))

    def test_every_smmu_s_features_are_described(self):
        """SMMUv3 features are in no sysfs file: each unit's probe line in
        the kernel's log gives them, once per unit however often printed."""
        self.needs_fake("dmesg")
        line = "[    0.5] arm-smmu-v3 arm-smmu-v3.{}.auto: ias 44-bit, oas 44-bit (features 0x{})"
        put(os.path.join(self.tmp, "machine", "dmesg"),
            "\n".join([line.format(0, "00008305"), line.format(1, "00000005"),
                       line.format(0, "00008305")]))
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(self.machine_json()["machine"]["smmuv3"], [
            {"device": "arm-smmu-v3.0.auto", "features": "0x00008305", "coherency": True},
            {"device": "arm-smmu-v3.1.auto", "features": "0x00000005", "coherency": False}])

    def test_every_run_has_a_64_bit_mask_unless_told(self):
        """With the tool's 32-bit default, identity (off) bounces pages above
        4 GiB through swiotlb: every run of the kit passes -b, 64 unless
        DMA_BITS says, and machine.json records it."""
        for bits, env in (("64", {}), ("40", {"DMA_BITS": "40"})):
            with self.subTest(bits=bits):
                self.out = os.path.join(self.tmp, f"out-{bits}")
                args = os.path.join(self.tmp, f"args-{bits}")
                run = self.run_kit("--take", WB_FAKE_ARGS=args, **env)
                self.assertEqual(run.returncode, 0, run.stderr)
                runs = [line.split() for line in self.read(args).splitlines()]
                # the tool's probe (-j -s 1), then 3 modes x 2 granules x 2 thread counts
                self.assertEqual(len(runs), 1 + 12)
                for words in runs[1:]:
                    self.assertEqual(words[words.index("-b") + 1], bits, words)
                self.assertEqual(self.machine_json()["matrix"]["dma_bits"], int(bits))

    def test_threads_cpus_is_the_cpu_count(self):
        args = os.path.join(self.tmp, "args")
        run = self.run_kit("--take", MODES="lazy", GRANULES="1", THREADS="1,cpus",
                           WB_FAKE_ARGS=args)
        self.assertEqual(run.returncode, 0, run.stderr)
        threads = [words[words.index("-t") + 1]
                   for words in (line.split() for line in self.read(args).splitlines()[1:])]
        self.assertEqual(threads, ["1", "4"])

    def test_amd_vi_and_the_kit_are_described(self):
        shutil.rmtree(f"{self.sys}/class/iommu")
        put(f"{self.sys}/class/iommu/ivhd0/amd-iommu/cap", "190")
        put(f"{self.sys}/class/iommu/ivhd0/amd-iommu/features", "25bf732fa2295afe:0")
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)
        described = self.machine_json()
        self.assertEqual(described["machine"]["iommus"], [
            {"name": "ivhd0", "kind": "amd-vi", "cap": "0x190", "features": "25bf732fa2295afe:0"}])
        self.assertEqual(described["kit"], self.read(os.path.join(self.kit, "VERSION")))

    def test_tracing_and_the_scratch_directory_are_given_back(self):
        """The counters turn tracing off machine-wide and the steps write
        their scratch files in a directory of the run's own: a normal end
        turns tracing on again and removes the directory."""
        tracing = f"{self.sys}/kernel/tracing"
        put(f"{tracing}/tracing_on", "1")
        put(f"{tracing}/kprobe_events", "")
        put(f"{tracing}/kprobe_profile", "")
        counted = subprocess.run(["sh", "-c", f". {ROOT}/guest/protocol.sh; echo $WB_COUNTED"],
                                 capture_output=True, text=True, check=True).stdout.split()
        for counter in counted:
            put(f"{tracing}/events/wb/{counter}/enable", "0")
        scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(scratch)
        run = self.run_kit("--take", MODES="lazy", TMPDIR=scratch)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back()
        # The runs were counted: the counters had turned tracing off.
        runs = self.runs("lazy")
        self.assertTrue(runs)
        for r in runs:
            self.assertTrue(set(counted) <= set(r["counted"] or {}), r)
        self.assertEqual(self.read(f"{tracing}/tracing_on"), "1")
        self.assertEqual(os.listdir(scratch), [])
        # Each probe placed is removed again (kprobe_events: "-:<group>/<event>").
        placed = self.read(f"{tracing}/kprobe_events").splitlines()
        for counter in counted:
            self.assertIn(f"-:wb/{counter}", placed)

    def test_the_driver_it_had_is_bound_not_the_first_that_probes(self):
        """e1000e was bound by hand; a probe would bind igb, which matches
        first: the end binds e1000e by name."""
        put(f"{self.sys}/bus/pci/drivers/igb/unbind", "")
        put(os.path.join(self.tmp, "machine", "natural", ADDR), "igb")
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back()

    def test_an_unbound_device_needs_no_take_and_stays_unbound(self):
        os.unlink(f"{self.sys}/bus/pci/devices/{ADDR}/driver")
        put(f"{self.sys}/bus/pci/devices/{ADDR}/driver_override", "vfio-pci")
        run = self.run_kit(MODES="strict")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back(driver=None, override="vfio-pci")

    def test_a_type_the_kernel_will_not_set_is_said_and_skipped(self):
        put(os.path.join(self.tmp, "machine", "refuse"), "identity")
        run = self.run_kit("--take")
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertIn("mode off (identity) not set: the kernel will not set type identity",
                      run.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "off.log")))
        self.assertEqual(len(self.runs("lazy")), 4)
        self.assertIn("will not set", self.machine_json()["modes"]["off"]["not_set"])
        self.assert_given_back()

    def test_a_group_another_driver_holds_keeps_its_type(self):
        self.device(OTHER, "e1000e", 7)
        run = self.run_kit("--take", MODES="lazy,strict")
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertIn(f"group 7 also holds {OTHER}, bound to e1000e", run.stderr)
        self.assertEqual(len(self.runs("lazy")), 4)
        self.assertFalse(os.path.exists(os.path.join(self.out, "strict.log")))
        self.assert_given_back()
        self.assertEqual(self.driver(OTHER), "e1000e")

    def test_report_reads_the_results_as_a_guests(self):
        self.assertEqual(self.run_kit("--take").returncode, 0)
        results = os.path.join(self.tmp, "report")
        report = subprocess.run([sys.executable, "-B",
                                 os.path.join(ROOT, "scripts", "results", "report.py"),
                                 results, self.out, self.out, "fake machine"],
                                capture_output=True, text=True)
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        with open(os.path.join(results, "bench.csv")) as f:
            self.assertEqual(len(f.readlines()), 1 + 3 * 4)


class KitLayoutTest(unittest.TestCase):
    def test_a_kit_is_not_laid_out_while_a_break_is_applied(self):
        """A killed 'make check-breaks' leaves its marker and the break in
        hw/ or guest/: hw-kit.sh must not pack that for a real machine."""
        tmp = tempfile.mkdtemp(prefix="wb-hw-")
        self.addCleanup(shutil.rmtree, tmp)
        for part in ("scripts", "guest", "hw"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(tmp, part))
        subprocess.run(["git", "init", "-q", tmp], check=True)
        put(os.path.join(tmp, ".git", "wb-break"), "hwkit.json: a break")
        kit = os.path.join(tmp, "kit")
        run = subprocess.run([os.path.join(tmp, "scripts", "build", "hw-kit.sh"), tmp, tmp,
                              os.path.join(HERE, "ktap_helpers.sh"), kit],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(run.returncode, 0, run.stderr)
        self.assertIn("hwkit.json: a break", run.stderr)
        self.assertFalse(os.path.exists(kit))


class GuestLayoutTest(FakeMachine):
    """The runner as the guests carry it: scripts/build/initramfs.sh called
    as make calls it puts hw/hw-run.sh in /wb and its parts (hw/lib/) in
    /wb/lib, beside the guest's own scripts; run from there (WB_DIR is
    where it is), it runs and gives back as the kit's does."""

    def test_the_initramfs_s_runner_runs(self):
        busybox = os.path.join(self.tmp, "busybox")
        put(busybox, "#!/bin/sh")
        image = os.path.join(self.tmp, "initramfs.cpio.gz")
        parts = sorted("hw/lib/" + n for n in os.listdir(os.path.join(ROOT, "hw", "lib")))
        subprocess.run([os.path.join("scripts", "build", "initramfs.sh"), busybox, "guest", image,
                        os.path.join(HERE, "ktap_helpers.sh"), "hw/hw-run.sh", *parts],
                       cwd=ROOT, check=True, capture_output=True)
        root = os.path.join(self.tmp, "initramfs")
        os.makedirs(root)
        subprocess.run(f"gzip -dc {image} | cpio -id --quiet", shell=True, cwd=root, check=True)
        self.assertEqual(sorted(os.listdir(os.path.join(root, "wb", "lib"))),
                         sorted(os.path.basename(p) for p in parts))
        self.kit = os.path.join(root, "wb")
        run = self.run_kit("--take", MODES="lazy")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual({r["domain"] for r in self.runs("lazy")}, {"DMA-FQ"})
        self.assert_given_back()


class SignalTest(FakeMachine):
    """A run ended from outside, while the tool runs."""

    def start(self, **env):
        kit = subprocess.Popen(self.command("--take", ADDR, self.out),
                               env=self.env(RUN_SECONDS="30", MODES="strict", **env),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        pids = os.path.join(self.tmp, "pids")
        # The probe of the tool's JSON run comes first: wait for the step's.
        while time.time() < deadline:
            if os.path.exists(pids) and len(self.read(pids).split()) >= 2:
                return kit, [int(p) for p in self.read(pids).split()]
            time.sleep(0.1)
        kit.kill()
        self.fail("the tool never ran")

    def assert_ended(self, pids):
        """Each tool process has ended: gone, or a zombie its new parent has
        yet to reap (a SIGKILLed one can be for a moment)."""
        for pid in pids:
            state = ""
            for _ in range(20):
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        state = f.read().rsplit(")", 1)[1].split()[0]
                except FileNotFoundError:
                    state = "gone"
                if state in ("gone", "Z"):
                    break
                time.sleep(0.1)
            self.assertIn(state, ("gone", "Z"), f"tool {pid} still runs")

    def test_sigterm_gives_everything_back_and_ends_the_run(self):
        kit, pids = self.start()
        self.assertEqual(self.driver(), "dma_map_benchmark")
        sent = time.monotonic()
        kit.send_signal(signal.SIGTERM)
        _, err = kit.communicate(timeout=30)
        self.assertEqual(kit.returncode, 143, err)
        # Ended, not run to its end: four runs of 3 s each were left.
        self.assertLess(time.monotonic() - sent, 5, err)
        self.assert_given_back()
        # The step's processes ended on SIGTERM (its zombies are no stuck tool).
        self.assertNotIn("did not end", err)
        # Nothing of the step is left running: its session was ended.
        self.assert_ended(pids)

    def test_int_hup_quit_and_pipe_give_everything_back(self):
        for sig, status in ((signal.SIGINT, 130), (signal.SIGHUP, 129), (signal.SIGQUIT, 131),
                            (signal.SIGPIPE, 141)):
            with self.subTest(signal=sig.name):
                # A directory and a pid list of this run's own.
                self.out = os.path.join(self.tmp, f"out-{sig.name}")
                if os.path.exists(os.path.join(self.tmp, "pids")):
                    os.unlink(os.path.join(self.tmp, "pids"))
                kit, pids = self.start()
                kit.send_signal(sig)
                _, err = kit.communicate(timeout=30)
                self.assertEqual(kit.returncode, status, err)
                self.assert_given_back()
                self.assert_ended(pids)

    def test_a_second_signal_does_not_cut_the_giving_back_short(self):
        """A person pressing Ctrl-C again while the kit waits for a tool
        that ignores SIGTERM (SIGKILL follows 10 s on) must not leave the
        device bound to dma_map_benchmark."""
        kit, pids = self.start(WB_FAKE_STUBBORN="1")
        kit.send_signal(signal.SIGTERM)
        time.sleep(1)
        kit.send_signal(signal.SIGINT)
        kit.send_signal(signal.SIGQUIT)
        kit.send_signal(signal.SIGTERM)
        _, err = kit.communicate(timeout=40)
        self.assert_given_back()
        self.assertEqual(kit.returncode, 143, err)
        self.assert_ended(pids)

    def test_a_live_run_is_neither_restored_nor_doubled(self):
        """The state file is there for the whole of a run: --restore, and a
        second run, while it goes on are refused, naming its pid, and leave
        it running; its own end gives everything back."""
        kit, pids = self.start()
        restore = subprocess.run(self.command("--restore", ADDR), env=self.env(),
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(restore.returncode, 2, restore.stderr)
        self.assertIn(f"the run of pid {kit.pid} still holds", restore.stderr)
        self.out = os.path.join(self.tmp, "out-2")
        again = self.run_kit("--take")
        self.assertEqual(again.returncode, 2, again.stderr)
        self.assertIn(f"kill -TERM {kit.pid}", again.stderr)
        self.assertEqual(self.driver(), "dma_map_benchmark")
        self.assertIsNone(kit.poll())
        kit.send_signal(signal.SIGTERM)
        _, err = kit.communicate(timeout=30)
        self.assertEqual(kit.returncode, 143, err)
        self.assert_given_back()
        self.assert_ended(pids)

    def test_what_cannot_be_given_back_stays_for_restore(self):
        """A driver that does not come back (its module unloaded meanwhile):
        exit 1, the state file kept, and --restore gives it back once it can."""
        kit, pids = self.start()
        driver = f"{self.sys}/bus/pci/drivers/e1000e"
        shutil.rmtree(driver)
        kit.send_signal(signal.SIGTERM)
        _, err = kit.communicate(timeout=30)
        self.assertEqual(kit.returncode, 1, err)
        self.assertIn("stays in", err)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "state", ADDR + ".state")))
        put(f"{driver}/unbind", "")
        run = subprocess.run(self.command("--restore", ADDR), env=self.env(),
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assert_given_back(group_type="DMA-FQ")
        self.assert_ended(pids)

    def test_a_run_whose_state_file_is_gone_touches_nothing_more(self):
        """Without its state file (removed by hand) the run has nothing to
        give back by: it ends before the next mode takes the device."""
        state = os.path.join(self.tmp, "state", ADDR + ".state")
        kit = subprocess.Popen(self.command("--take", ADDR, self.out),
                               env=self.env(MODES="strict,lazy"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while not os.path.exists(state) and time.time() < deadline:
            time.sleep(0.01)
        os.unlink(state)
        _, err = kit.communicate(timeout=60)
        self.assertEqual(kit.returncode, 1, err)
        self.assertIn("is gone", err)
        self.assertFalse(os.path.exists(os.path.join(self.out, "lazy.log")))

    def test_restore_after_sigkill(self):
        """The mode's session outlives the kit's kill -9 (no trap sees it):
        --restore ends it as well as giving the device back, and removes
        the run's scratch directory."""
        scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(scratch)
        kit, pids = self.start(TMPDIR=scratch)
        kit.kill()
        kit.communicate(timeout=30)
        self.assertEqual(self.driver(), "dma_map_benchmark")
        # A second run before --restore would save the kit's own binding as
        # the device's: refused, the device untouched.
        again = self.run_kit("--take")
        self.assertEqual(again.returncode, 2, again.stdout + again.stderr)
        self.assertIn(f"--restore {ADDR} first", again.stdout + again.stderr)
        self.assertEqual(self.driver(), "dma_map_benchmark")
        run = subprocess.run(self.command("--restore", ADDR), env=self.env(),
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(os.listdir(scratch), [])
        self.assert_given_back(group_type="DMA-FQ")
        self.assert_ended(pids)


if __name__ == "__main__":
    unittest.main()
