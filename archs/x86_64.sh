# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # data, read by scripts/lib.sh's arch_facts
# x86_64: QEMU q35 with an emulated VT-d (intel-iommu), an 8250 console.
image=arch/x86/boot/bzImage
cross=
qemu="qemu-system-x86_64 -M q35"
cpu="-cpu max"
# The CPU when scripts/run/accel.sh finds KVM usable (WB_ACCEL=kvm)
cpu_kvm="-accel kvm -cpu host"
console=ttyS0
# The kernel config fragments every x86_64 kernel starts from (configs/)
fragments="configs/common.config configs/x86_64.config"
# The guest's busybox: the machine's own (Debian's busybox-static)
busybox=/bin/busybox
# The workbench's test modules (modules/<name>/) each initramfs loads
modules="wb_dma_test"
# A 32-bit ABI the dma_map_benchmark tools are also built for, and its
# compiler: the tree's and Linux 7.3's tool as 32-bit callers (compat_ioctl)
compat=i386 compat_cc=i686-linux-gnu-gcc
# Objects the series changes that no kernel of this architecture builds
# (VDUSE needs the network stack): W=1 and sparse compile them alone
alone="drivers/vdpa/vdpa_user/iova_domain.o"
# Each IOMMU mode, by role (guest/protocol.sh): the IOMMU's QEMU device and
# the kernel's command line.
# cm is VT-d's caching mode, the virtual-IOMMU case; the kernel picks its
# default strictness there (7.3: strict; the series: one flush queue per
# domain), and the test module is told, to check what the series picks.
# On every mode's command line: nothing more.
append_all=""
iommu_direct="-device intel-iommu" append_direct="intel_iommu=off"
iommu_lazy="-device intel-iommu" append_lazy="intel_iommu=on iommu.strict=0"
iommu_strict="-device intel-iommu" append_strict="intel_iommu=on iommu.strict=1"
iommu_cm="-device intel-iommu,caching-mode=on" append_cm="intel_iommu=on wb.wb_dma_test=caching_mode=1"
# The workload job's devices: two e1000e on QEMU hub 0 and two virtio-net on
# hub 1 (behind the IOMMU: iommu_platform=on), so that what the first of a
# pair transmits, the second receives; an NVMe controller, whose drive "nvm"
# the caller adds (scripts/run/workloads.sh: a sparse raw file; QEMU 7.2's NVMe
# on the null block driver loses completions at queue depth 32).
net_qemu="-netdev hubport,id=e0,hubid=0 -device e1000e,netdev=e0,mac=52:54:00:00:00:01
	-netdev hubport,id=e1,hubid=0 -device e1000e,netdev=e1,mac=52:54:00:00:00:02
	-netdev hubport,id=v0,hubid=1
	-device virtio-net-pci,netdev=v0,disable-legacy=on,iommu_platform=on,mac=52:54:00:00:01:01
	-netdev hubport,id=v1,hubid=1
	-device virtio-net-pci,netdev=v1,disable-legacy=on,iommu_platform=on,mac=52:54:00:00:01:02"
nvme_qemu="-device nvme,serial=wb-nvme,drive=nvm"
workload_qemu="$net_qemu $nvme_qemu"
