# SPDX-License-Identifier: GPL-2.0
"""The result protocol between the guests and the host (guest/protocol.sh),
read without a shell: the IOMMU modes, the guest job's markers, the kinds
of the steps' JSON objects and the counters' names.

The file the shell sources is the one place these are written; this module
only parses it. WB_PROTOCOL names another file (the unit tests rename a
value there and check that the parsers follow).
"""

import os
import re
import sys

PATH = os.environ.get("WB_PROTOCOL") or os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "guest", "protocol.sh"))

# NAME=word or NAME="words": what protocol.sh may hold besides comments
ASSIGNMENT = re.compile(r'^([A-Z][A-Z0-9_]*)=(?:"([^"\\`]*)"|([^\s"\'\\`;&|<>()]*))$')
REFERENCE = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}|\$([A-Z][A-Z0-9_]*)")


def expand(value, names, where):
    """<value> with each $NAME or ${NAME} replaced by an earlier value."""
    def lookup(match):
        name = match.group(1) or match.group(2)
        if name not in names:
            raise SystemExit(f"{where}: ${name} is not defined above")
        return names[name]
    return REFERENCE.sub(lookup, value)


def parse(text, path="protocol.sh"):
    """{NAME: value} of a protocol file; anything else than a comment or a
    plain assignment is an error, so that what the shell reads is what this
    reads."""
    names = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = ASSIGNMENT.match(line)
        value = match and (match.group(2) if match.group(2) is not None else match.group(3))
        # A "$" that is no $NAME or ${NAME} ($(...), ${A:-b}) and a leading
        # "~" mean something to the shell that they do not mean here.
        if not match or "$" in REFERENCE.sub("", value) or value.startswith("~"):
            raise SystemExit(f"{path}:{number}: not a plain assignment: {line}")
        names[match.group(1)] = expand(value, names, f"{path}:{number}")
    return names


def load(path=PATH):
    with open(path) as f:
        return parse(f.read(), path)


def faults_pattern(line):
    """The regular expression of WB_FAULTS_LINE after KUnit's "# ": %s the
    mode, each %u a count, the rest literal."""
    parts = re.split(r"(%s|%u)", line)
    return re.compile("# " + "".join({"%s": r"(\w+)", "%u": r"(\d+)"}.get(p, re.escape(p))
                                     for p in parts))


VALUES = load()
MODE_DIRECT = VALUES["WB_MODE_DIRECT"]
MODE_LAZY = VALUES["WB_MODE_LAZY"]
MODE_STRICT = VALUES["WB_MODE_STRICT"]
MODE_CM = VALUES["WB_MODE_CM"]
MODES = VALUES["WB_MODES"].split()
# The data (archs/, configs/boots, tests/breaks/) names a mode by its role,
# the lower-case suffix of WB_MODE_<ROLE>; ROLES maps each to its name.
ROLES = {name[len("WB_MODE_"):].lower(): value for name, value in VALUES.items()
         if name.startswith("WB_MODE_")}
if sorted(ROLES.values()) != sorted(MODES) or len(set(MODES)) != len(MODES):
    sys.exit(f"{PATH}: WB_MODES must list each WB_MODE_<ROLE> once, under distinct names")
JOB_MARKER = VALUES["WB_JOB_MARKER"]
END_MARKER = VALUES["WB_END_MARKER"]
KIND_MATRIX = VALUES["WB_KIND_MATRIX"]
KIND_RUN = VALUES["WB_KIND_RUN"]
KIND_PLAN = VALUES["WB_KIND_PLAN"]
KIND_WORKLOAD = VALUES["WB_KIND_WORKLOAD"]
COUNT_WAIT = VALUES["WB_COUNT_WAIT"]
COUNT_MAP_FLUSH = VALUES["WB_COUNT_MAP_FLUSH"]
COUNT_ALLOC = VALUES["WB_COUNT_ALLOC"]
COUNT_PAGES = VALUES["WB_COUNT_PAGES"]
COUNT_WHOLE = VALUES["WB_COUNT_WHOLE"]
COUNT_LOST = VALUES["WB_COUNT_LOST"]
FAULTS = faults_pattern(VALUES["WB_FAULTS_LINE"])


def console_mode(name, path):
    """The IOMMU mode of a console file <mode>.log or <mode>-smp.log; a
    mode WB_MODES does not list is an error, never left out."""
    mode = name[:-len(".log")]
    mode = mode[:-len("-smp")] if mode.endswith("-smp") else mode
    if mode not in MODES:
        raise SystemExit(f"{path}: IOMMU mode '{mode}' is not one of WB_MODES "
                         f"({' '.join(MODES)}) of {PATH}")
    return mode


def consoles(kernel_dir):
    """[(mode, path)] of the console logs in a kernel's directory, in the
    order of WB_MODES, one-thread console first; none for a directory that
    is not there (a kernel that was never measured)."""
    if not os.path.isdir(kernel_dir):
        return []
    found = [(console_mode(name, os.path.join(kernel_dir, name)), os.path.join(kernel_dir, name))
             for name in sorted(os.listdir(kernel_dir)) if name.endswith(".log")]
    return sorted(found, key=lambda mp: (MODES.index(mp[0]), mp[1].endswith("-smp.log")))
