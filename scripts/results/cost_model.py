# SPDX-License-Identifier: GPL-2.0
"""An ESTIMATE of what an unmap costs in a KVM guest whose VT-d is QEMU's
in caching mode with an assigned (VFIO) device: the guest's own time, as
measured under TCG, plus the host's work that TCG does not model, from the
measured counters and published per-event costs. Nothing here is measured
on a host: every output line says it is an estimate.

The host's work per unmap, in the model:
  EXIT_US   x invalidation waits per unmap (each wait is a queued-
            invalidation tail write that QEMU handles in user space);
  UNMAP_US  x pages the guest unmapped (QEMU's page walk sends one
            VFIO_IOMMU_UNMAP_DMA per stale leaf entry it finds, whichever
            invalidation made it look: the same in every mode);
  WALK_US   x page-table entries QEMU reads: the pages a page-selective
            invalidation names, or a whole table (WHOLE_ENTRIES) per
            domain-wide one.

Sources of the per-event costs:
  EXIT_US   about 2000 cycles for the bare exit and entry on KVM (Landau,
            Ben-Yehuda, Gordon, "SplitX: Split Guest/Hypervisor Execution
            on Multi-Core", Xeon X5570), and about 3.3 times the cost of an
            in-kernel exit for one handled by QEMU (kvm-unit-tests vmexit
            inl_from_qemu against inl_from_kernel, in Paolo Bonzini's "KVM:
            VMX optimizations" series, 2019, nested): 6600 cycles, 2.2 us
            at 3 GHz.
  UNMAP_US  about 14 us per VFIO_IOMMU_UNMAP_DMA ioctl, timed with strace
            on ranges with nothing mapped (Zhenzhong Duan, "intel_iommu:
            Optimize out some unnecessary UNMAP calls", qemu-devel, May
            2023); a real unmap costs more.
  WALK_US   not published: 0.05 us per entry read through QEMU's guest
            memory accessors is an assumption, and WHOLE_ENTRIES = 4 tables
            of 512 entries the smallest table a domain-wide walk reads (the
            benchmark's domain maps one buffer at a time); a domain with M
            MiB mapped in 4 KiB pages makes it about 256 x M more.
"""

import protocol

EXIT_US = 2.2
UNMAP_US = 14.0
WALK_US = 0.05
WHOLE_ENTRIES = 4 * 512
# Above this the benchmark's buffers may get 2 MiB leaves, which QEMU
# unmaps with one call each: the model counts 4 KiB leaves only.
MAX_PAGES = 256


def host_us(row, who):
    """The estimated host microseconds per unmap of one cm row, or None."""
    waits = row.get(f"{who}_qi_per_1k_unmaps")
    pages = row.get(f"{who}_inv_pages_per_page")
    whole = row.get(f"{who}_whole_per_1k_unmaps")
    if waits is None or pages is None or whole is None:
        return None
    granule = int(row["granule"])
    if granule > MAX_PAGES:
        return None
    walked = pages * granule + whole / 1000 * WHOLE_ENTRIES
    return waits / 1000 * EXIT_US + granule * UNMAP_US + walked * WALK_US


def total_us(row, who):
    """The estimated microseconds per unmap of a cm row, rounded, or None."""
    if row["mode"] != protocol.MODE_CM:
        return None
    cells = estimate(row, who)
    return round(cells[2], 2) if cells else None


def estimate(row, who):
    """(guest us, host us, total us) per unmap, or None."""
    guest_ns = row.get(f"{who}_unmap_p50")
    host = host_us(row, who)
    if guest_ns is None or host is None:
        return None
    return guest_ns / 1000, host, guest_ns / 1000 + host


def print_estimate(table):
    """The estimate for the one-thread caching-mode rows, if counted."""
    picked = [r for r in table if r["mode"] == protocol.MODE_CM and r["threads"] == "1"]
    lines = []
    for row in picked:
        cells = [estimate(row, who) for who in ("baseline", "patched")]
        if None in cells:
            continue
        (bg, bh, bt), (pg, ph, pt) = cells
        lines.append(f'{row["granule"]:>5} {row["depth"]:>5}  {bg:7.2f} {bh:7.2f} {bt:7.2f}'
                     f'  {pg:7.2f} {ph:7.2f} {pt:7.2f}  {pt / bt:5.2f}')
    if not lines:
        return
    print("ESTIMATE, not a measurement: us per unmap in a KVM guest with QEMU's VT-d in "
          "caching mode and an assigned device (guest: the p50 under TCG; host: the counters "
          f"x {EXIT_US} us per exit, {UNMAP_US} us per page unmapped, {WALK_US} us per "
          "entry walked; sources in scripts/results/cost_model.py)")
    print("pages depth  baseline guest/host/total   patched guest/host/total   p/b")
    print("\n".join(lines))
    print()
