# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # data, read by scripts/lib.sh's arch_facts
# arm64: QEMU virt with an SMMUv3, a PL011 console, two ivshmem devices
# whose BAR2 is a peer's 64-bit prefetchable BAR with RAM behind it, and an
# NVMe controller with a 2 MiB Controller Memory Buffer (its BAR2, also
# prefetchable), for the peer-to-peer tests (wb_dma_test: nvme-pci declares
# its CMB write-combinable, the module registers ivshmem's BAR2 undeclared;
# the resource mode). 2 MiB each: P2PDMA memory is ZONE_DEVICE memory, added
# in whole 2 MiB subsections. The NVMe drive is QEMU's null block driver.
image=arch/arm64/boot/Image
cross=aarch64-linux-gnu-
qemu="qemu-system-aarch64 -M virt,iommu=smmuv3
	-object memory-backend-ram,id=p2p,size=2M -device ivshmem-plain,memdev=p2p
	-object memory-backend-ram,id=p2p2,size=2M -device ivshmem-plain,memdev=p2p2
	-drive if=none,id=cmbnvm,driver=null-co
	-device nvme,serial=wb-cmb,drive=cmbnvm,cmb_size_mb=2"
cpu="-cpu max"
cpu_kvm=
console=ttyAMA0
# The kernel config fragments every arm64 kernel starts from (configs/)
fragments="configs/common.config configs/arm64.config"
# The guest's busybox: Debian's static arm64 one, which the machine's
# packages cannot install beside its own (scripts/build/busybox-arm64.sh)
busybox=build/busybox-arm64
# The workbench's test modules (modules/<name>/) each initramfs loads
modules="wb_dma_test"
# No 32-bit ABI the tools are built for, no object built alone
compat="" compat_cc=""
alone=""
# Each IOMMU mode, by role (guest/protocol.sh): extra QEMU options (the SMMU is part of the machine) and
# the kernel's command line.
# On every mode's command line: the guest must find the ivshmem and CMB peers.
append_all="wb.wb_dma_test=expect_ivshmem=1 wb.wb_dma_test=expect_cmb=1"
iommu_direct='' append_direct="iommu.passthrough=1"
iommu_lazy='' append_lazy="iommu.passthrough=0 iommu.strict=0"
iommu_strict='' append_strict="iommu.passthrough=0 iommu.strict=1"
