#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Apply one deliberate break of a tests/breaks/<suite>.json file to a tree.

Each break replaces one exact text (which must occur once) in one file; it
is undone with git checkout of that file. Prints the KUnit case that the
break must make fail. A break runs in the IOMMU modes it names ("modes"),
else in the file's ("modes"), else in lazy mode: one break file serves
every mode its suite must be broken in. A file whose "root" is "workbench"
breaks the workbench's own files (the hardware kit's runner,
guest/steps/hwkit.sh's cases), not the tree's.

Usage: break.py <tree> <breaks.json> <name>    apply <name>, print its case
       break.py --list <breaks.json>           print the names
       break.py --modes <breaks.json> <name>   print the modes <name> runs in
       break.py --arch <breaks.json>           print the guest's architecture
       break.py --root <breaks.json>           print what it breaks: tree or
                                               workbench
       break.py --field <breaks.json> <name> <field>
                                               print a break's "append" or
                                               "devices", else its file's
       break.py --verify <tree> <breaks.json>...
                                               every break is complete, names
                                               modes by the roles of
                                               guest/protocol.sh, its text
                                               occurs once (in the tree or,
                                               "root": "workbench", here),
                                               no key or root is unknown
"""
import json
import os
import sys

# guest/protocol.sh as Python: scripts/results/protocol.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results"))
import protocol  # noqa: E402

FIELDS = ("name", "file", "old", "new", "fails")
# What else a break and a file may say; any other key is a typo --verify
# names (a break's "mode" once ran it in lazy mode unnoticed). A break's
# own "append" and "devices" take the place of its file's (--field).
BREAK_KEYS = set(FIELDS) | {"modes", "append", "devices"}
FILE_KEYS = {"suite", "breaks", "job", "append", "kunitconfig", "arch", "modes",
             "root", "devices", "seconds"}
# What a file's "root" may name, what its breaks are relative to: the tree
# (its default) or this workbench (the hardware kit's files).
ROOTS = ("tree", "workbench")
WORKBENCH = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def load(path):
    with open(path) as f:
        return json.load(f)


def breaks(path):
    return load(path)["breaks"]


def roles(data, brk):
    """The roles of the IOMMU modes a break runs in (guest/protocol.sh: the
    data names modes by role): its own, else its file's, else lazy."""
    return brk.get("modes") or data.get("modes") or ["lazy"]


def modes(data, brk):
    """The names of the IOMMU modes a break runs in."""
    unknown = [role for role in roles(data, brk) if role not in protocol.ROLES]
    if unknown:
        sys.exit(f"break.py: {brk['name']}: unknown mode role {' '.join(unknown)}")
    return [protocol.ROLES[role] for role in roles(data, brk)]


def root(data):
    """What a file's breaks change: "tree" or "workbench"."""
    return data.get("root", "tree")


def base(tree, data):
    """The directory a file's breaks are relative to: the tree, or the
    workbench for a file whose "root" says so; any other root is refused
    rather than taken for the tree."""
    if root(data) not in ROOTS:
        sys.exit(f"break.py: root {root(data)} is not one of {' '.join(ROOTS)}")
    return WORKBENCH if root(data) == "workbench" else tree


def apply(tree, brk):
    path = os.path.join(tree, brk["file"])
    with open(path) as f:
        text = f.read()
    if text.count(brk["old"]) != 1:
        sys.exit(f"break.py: {brk['name']}: its text occurs "
                 f"{text.count(brk['old'])} times in {brk['file']}, not once")
    with open(path, "w") as f:
        f.write(text.replace(brk["old"], brk["new"]))


def occurrences(tree, brk):
    try:
        with open(os.path.join(tree, brk["file"])) as f:
            return f.read().count(brk["old"])
    except FileNotFoundError:
        return 0


def problems(tree, data, brk):
    """What keeps one break from running as its file says."""
    # "new" may be empty: a break may delete its text
    missing = [f for f in FIELDS if f not in brk or (f != "new" and not brk[f])]
    if missing:
        return [f"it has no {', '.join(missing)}"]
    found = []
    # a file of an unknown root is named once, by verify
    count = occurrences(base(tree, data), brk) if root(data) in ROOTS else 1
    if count != 1:
        found.append(f"its text occurs {count} times in {brk['file']}, not once")
    unknown = [m for m in roles(data, brk) if m not in protocol.ROLES]
    if unknown:
        found.append(f"mode {' '.join(unknown)} is not one of the roles of guest/protocol.sh's "
                     f"modes ({' '.join(protocol.ROLES)})")
    found += [f"unknown key {key}" for key in sorted(set(brk) - BREAK_KEYS)]
    return found


def verify(tree, paths):
    """Whether every break of every file can still be run: a break whose
    text no longer occurs exactly once would fail without testing anything."""
    stale = [f"{path}: unknown key {key}" for path in paths
             for key in sorted(set(load(path)) - FILE_KEYS)]
    stale += [f"{path}: root {root(load(path))} is not one of {' '.join(ROOTS)}"
              for path in paths if root(load(path)) not in ROOTS]
    stale += [f"{path}: {brk.get('name', '?')}: {problem}"
              for path in paths for brk in breaks(path)
              for problem in problems(tree, load(path), brk)]
    for path in paths:
        names = [brk.get("name") for brk in breaks(path)]
        stale += [f"{path}: {name}: named {names.count(name)} times"
                  for name in sorted(set(names), key=str) if names.count(name) > 1]
    print("\n".join(stale) or f"{sum(len(breaks(p)) for p in paths)} breaks apply")
    return not stale


def find(path, name):
    for brk in breaks(path):
        if brk["name"] == name:
            return brk
    sys.exit(f"break.py: no break named {name} in {path}")


def main(argv):
    if len(argv) >= 4 and argv[1] == "--verify":
        sys.exit(0 if verify(argv[2], argv[3:]) else 1)
    if len(argv) == 3 and argv[1] == "--list":
        print("\n".join(b["name"] for b in breaks(argv[2])))
        return
    if len(argv) == 4 and argv[1] == "--modes":
        print(" ".join(modes(load(argv[2]), find(argv[2], argv[3]))))
        return
    if len(argv) == 3 and argv[1] == "--arch":
        print(load(argv[2]).get("arch", "x86_64"))
        return
    if len(argv) == 5 and argv[1] == "--field":
        data = load(argv[2])
        print(find(argv[2], argv[3]).get(argv[4], data.get(argv[4], "")))
        return
    if len(argv) == 3 and argv[1] == "--root":
        data = load(argv[2])
        base("", data)
        print(root(data))
        return
    if len(argv) != 4:
        sys.exit(__doc__)
    tree, path, name = argv[1:]
    brk = find(path, name)
    apply(base(tree, load(path)), brk)
    print(brk["fails"])


if __name__ == "__main__":
    main(sys.argv)
