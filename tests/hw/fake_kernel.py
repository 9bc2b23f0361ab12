#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's part on a fake sysfs (WB_SYSFS), run by guest/lib.sh's
sysfs_write after each write (WB_SYSFS_HOOK): binds through drivers_probe
and driver_override, unbinds, and group types, which it takes only when no
driver holds the group and the type is not in <root>/../refuse (else it
puts the old one back, as the kernel's refusal leaves it). Each event is a
line of <root>/../events.

Usage: fake_kernel.py <path written>
"""

import os
import sys


def read(path):
    with open(path) as f:
        return f.read().strip()


def write(path, text):
    with open(path, "w") as f:
        f.write(text + "\n")


def event(root, text):
    with open(os.path.join(root, "..", "events"), "a") as f:
        f.write(text + "\n")


def bind(root, addr, driver):
    link = os.path.join(root, "bus/pci/devices", addr, "driver")
    if driver and os.path.isdir(os.path.join(root, "bus/pci/drivers", driver)) \
            and not os.path.lexists(link):
        os.symlink(f"../../../../bus/pci/drivers/{driver}", link)
        event(root, f"bind {addr} {driver}")


def group_bound(root, group):
    devices = os.path.join(root, "kernel/iommu_groups", group, "devices")
    # Drivers that manage their own DMA (a PCIe port, pci-stub) hold no group.
    return [d for d in os.listdir(devices)
            if os.path.lexists(os.path.join(devices, d, "driver"))
            and os.path.basename(os.readlink(os.path.join(devices, d, "driver")))
            not in ("pcieport", "pci-stub")]


def main(path):
    root = os.environ["WB_SYSFS"]
    # Writes come through the device's links (driver/unbind, iommu_group/type).
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root)).split("/")
    value = read(path)
    shadow = os.path.join(root, "..", "shadow")
    if rel[-1] == "driver_override":
        # An empty write clears it ("(null)" when read); a written "(null)"
        # is an override naming a driver called that, which none is.
        literal = os.path.join(shadow, "override-" + rel[-2])
        if value == "(null)":
            write(literal, value)
        elif os.path.exists(literal):
            os.unlink(literal)
        write(path, value or "(null)")
        event(root, f"override {rel[-2]} {value or '(null)'}")
    elif rel == ["bus", "pci", "drivers_probe"]:
        dev = os.path.join(root, "bus/pci/devices", value)
        override = read(os.path.join(dev, "driver_override"))
        natural = os.path.join(root, "..", "natural", value)
        driver = override if override != "(null)" else (
            read(natural) if os.path.exists(natural) else "")
        if os.path.exists(os.path.join(shadow, "override-" + value)):
            driver = ""
        bind(root, value, driver)
    elif rel[:3] == ["bus", "pci", "drivers"] and rel[-1] == "bind":
        # A driver binds by name only what driver_override does not keep
        # for another.
        override = read(os.path.join(root, "bus/pci/devices", value, "driver_override"))
        if override not in ("(null)", rel[3]):
            sys.exit(1)
        bind(root, value, rel[3])
    elif rel[:3] == ["bus", "pci", "drivers"] and rel[-1] == "unbind":
        link = os.path.join(root, "bus/pci/devices", value, "driver")
        if os.path.lexists(link):
            os.unlink(link)
            event(root, f"unbind {value} {rel[3]}")
    elif rel[:2] == ["kernel", "iommu_groups"] and rel[-1] == "type":
        group = rel[2]
        old = read(os.path.join(shadow, group))
        refused = read(os.path.join(root, "..", "refuse")).split() \
            if os.path.exists(os.path.join(root, "..", "refuse")) else []
        if group_bound(root, group) or value in refused:
            write(path, old)
            event(root, f"type {group} {value} refused")
        else:
            write(os.path.join(shadow, group), value)
            event(root, f"type {group} {value}")


if __name__ == "__main__":
    main(sys.argv[1])
