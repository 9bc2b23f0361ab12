#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Apply one deliberate break of a tests/breaks/<suite>.json file to a tree.

Each break replaces one exact text (which must occur once) in one file; it
is undone with git checkout of that file. Prints the KUnit case that the
break must make fail.

Usage: break.py <tree> <breaks.json> <name>    apply <name>, print its case
       break.py --list <breaks.json>           print the names
       break.py --arch <breaks.json>           print the guest's architecture
       break.py --verify <tree> <breaks.json>...
                                               every break's text occurs once
"""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def breaks(path):
    return load(path)["breaks"]


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


def verify(tree, paths):
    """Whether every break of every file can still be applied: a break whose
    text no longer occurs exactly once would stop the rest of its file."""
    stale = [f"{path}: {brk['name']}: its text occurs {occurrences(tree, brk)} "
             f"times in {brk['file']}, not once"
             for path in paths for brk in breaks(path) if occurrences(tree, brk) != 1]
    print("\n".join(stale) or f"{sum(len(breaks(p)) for p in paths)} breaks apply")
    return not stale


def main(argv):
    if len(argv) >= 4 and argv[1] == "--verify":
        sys.exit(0 if verify(argv[2], argv[3:]) else 1)
    if len(argv) == 3 and argv[1] == "--list":
        print("\n".join(b["name"] for b in breaks(argv[2])))
        return
    if len(argv) == 3 and argv[1] == "--arch":
        print(load(argv[2]).get("arch", "x86_64"))
        return
    if len(argv) != 4:
        sys.exit(__doc__)
    tree, path, name = argv[1:]
    for brk in breaks(path):
        if brk["name"] == name:
            apply(tree, brk)
            print(brk["fails"])
            return
    sys.exit(f"break.py: no break named {name} in {path}")


if __name__ == "__main__":
    main(sys.argv)
