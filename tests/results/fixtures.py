#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The saved consoles (tests/consoles/) and benchmark fixtures (tests/bench/)
in the result protocol of today.

They were recorded by guests speaking the protocol of tests/recorded-protocol.sh
(a copy of guest/protocol.sh as it was then). When guest/protocol.sh has
renamed a mode, a marker, a JSON kind or a counter since, the fixtures are
rewritten on the way in, as a guest speaking today's protocol would have
written them, so that a rename in guest/protocol.sh alone keeps every test
that reads them: a mode renames the consoles' files, the tables' mode
column, per_patch.py's first column and the mode column of its
--workloads table; a marker is replaced where it
occurs; a kind or a counter where it names a JSON member.

Usage: fixtures.py <scratch dir>   print the consoles' and the benchmark
                                   fixtures' directories, rewritten into
                                   <scratch dir> when anything was renamed
"""

import csv
import io
import os
import re
import shutil
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "results"))
import protocol  # noqa: E402

RECORDED = os.path.join(ROOT, "tests", "recorded-protocol.sh")
CONSOLES = os.path.join(ROOT, "tests", "consoles")
BENCH = os.path.join(ROOT, "tests", "bench")
# What a guest writes that the fixtures hold (WB_FAULTS_LINE is the test
# module's text: consoles with another one are recorded again).
MODES = "WB_MODE_"
MARKERS = ("WB_JOB_MARKER", "WB_END_MARKER", "WB_TRACE_START")
MEMBERS = ("WB_KIND_", "WB_COUNT_")


def renames(recorded, current):
    """{name: (recorded value, current value)} of what a guest writes and
    has changed; a name the fixtures' protocol lacks cannot be followed."""
    changed = {}
    for name, value in current.items():
        if not name.startswith((MODES,) + MARKERS + MEMBERS) or name == "WB_COUNTED":
            continue
        if name not in recorded:
            sys.exit(f"fixtures.py: {RECORDED} has no {name}: record the fixtures again")
        if recorded[name] != value:
            changed[name] = (recorded[name], value)
    return changed


class Rewriter:
    """The fixtures' files, names and contents, under today's values."""

    def __init__(self, changed):
        self.modes = {old: new for name, (old, new) in changed.items() if name.startswith(MODES)}
        self.texts = [(old, new) for name, (old, new) in changed.items() if name in MARKERS]
        self.texts += [(f'"{old}":', f'"{new}":') for name, (old, new) in changed.items()
                       if name.startswith(MEMBERS)]

    def file_name(self, name):
        for suffix in (".log", "-smp.log"):
            stem = name[:-len(suffix)] if name.endswith(suffix) else None
            if stem in self.modes:
                return self.modes[stem] + suffix
        return name

    def text(self, name, text):
        for old, new in self.texts:
            text = text.replace(old, new)
        if self.modes and name.endswith(".csv"):
            text = self.csv(text)
        elif self.modes and name == "expected-per-patch.txt":
            text = "".join(self.first_word(line) for line in text.splitlines(True))
        elif self.modes and name == "expected-per-patch-workloads.txt":
            text = "".join(self.workload_mode(line) for line in text.splitlines(True))
        return text

    def csv(self, text):
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if not rows or "mode" not in rows[0]:
            return text
        column = rows[0].index("mode")
        for row in rows[1:]:
            if len(row) > column:
                row[column] = self.modes.get(row[column], row[column])
        out = io.StringIO(newline="")
        csv.writer(out, lineterminator="\r\n" if "\r\n" in text else "\n").writerows(rows)
        return out.getvalue()

    def first_word(self, line):
        """per_patch.py's rows begin with the mode in a field of 6, and its
        failures name it as mode=<mode>."""
        word = line[:6].rstrip()
        if line[6:7] == " " and word in self.modes:
            line = f"{self.modes[word]:6} " + line[7:]
        return self.mode_names(line)

    def mode_names(self, line):
        return re.sub(r"\bmode=([\w-]+)",
                      lambda m: "mode=" + self.modes.get(m.group(1), m.group(1)), line)

    def workload_mode(self, line):
        """per_patch.py --workloads' rows have the mode in a field of 6 after
        the workload's (26) and the rate's (6); its failures name it as
        mode=<mode>."""
        word = line[34:40].rstrip()
        if line[40:41] == " " and word in self.modes:
            line = line[:34] + f"{self.modes[word]:6} " + line[41:]
        return self.mode_names(line)

    def copy(self, source, target):
        for top, _, files in os.walk(source):
            into = os.path.join(target, os.path.relpath(top, source))
            os.makedirs(into, exist_ok=True)
            for name in files:
                with open(os.path.join(top, name), errors="replace", newline="") as f:
                    text = f.read()
                with open(os.path.join(into, self.file_name(name)), "w", newline="") as out:
                    out.write(self.text(name, text))


def translated(scratch):
    """(consoles dir, bench dir): the saved ones when nothing a guest writes
    was renamed since they were recorded, else rewritten into <scratch>."""
    changed = renames(protocol.load(RECORDED), protocol.VALUES)
    if not changed:
        return CONSOLES, BENCH
    rewriter = Rewriter(changed)
    dirs = os.path.join(scratch, "consoles"), os.path.join(scratch, "bench")
    for source, target in zip((CONSOLES, BENCH), dirs):
        shutil.rmtree(target, ignore_errors=True)
        rewriter.copy(source, target)
    return dirs


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fixtures.py <scratch dir>")
    print("\n".join(translated(sys.argv[1])))
