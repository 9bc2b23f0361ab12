# SPDX-License-Identifier: GPL-2.0
"""What the results layer's unit tests share: where the workbench's scripts
and fixtures are, the scripts as modules, and fixtures rewritten with a
renamed protocol value.

The tests need no kernel tree: guest-results.py's only use of one (or of
the KUnit tool extracted alone), kunit.py parse, is replaced by a stand-in
where a test needs it.
"""

import atexit
import csv
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

import fixtures

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
# The results layer's modules (scripts/results/) import each other by name.
RESULTS = os.path.join(SCRIPTS, "results")
PROTOCOL = os.path.join(ROOT, "guest", "protocol.sh")
sys.path.insert(0, RESULTS)

# The saved consoles and benchmark fixtures, in today's protocol (rewritten
# by fixtures.py when guest/protocol.sh renamed something since they were
# recorded).
_FIXTURES = tempfile.mkdtemp(prefix="wb-fixtures-")
atexit.register(shutil.rmtree, _FIXTURES, True)
CONSOLES, BENCH = fixtures.translated(_FIXTURES)


def copy_workbench(where, protocol_text=None):
    """The workbench's scripts and data under <where>, its guest/protocol.sh
    replaced by <protocol_text> when given: scripts run there as here, and
    a test may stand in for some of them."""
    for part in ("scripts", "guest", "archs", "configs"):
        shutil.copytree(os.path.join(ROOT, part), os.path.join(where, part))
    if protocol_text is not None:
        with open(os.path.join(where, "guest", "protocol.sh"), "w") as out:
            out.write(protocol_text)
    return os.path.join(where, "scripts")


def stand_in(scripts, name, text):
    """Replace scripts/<name> of a copied workbench by a script of <text>."""
    with open(os.path.join(scripts, name), "w") as out:
        out.write(text)
    os.chmod(os.path.join(scripts, name), 0o755)


def script_path(name):
    """scripts/<flow>/<name>: the one script of that name in any flow."""
    found = [os.path.join(SCRIPTS, flow, name) for flow in sorted(os.listdir(SCRIPTS))
             if os.path.isfile(os.path.join(SCRIPTS, flow, name))]
    if len(found) != 1:
        raise LookupError(f"{len(found)} scripts named {name} in {SCRIPTS}")
    return found[0]


def script_module(name):
    """A script whose file name is no module name (guest-results.py)."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  script_path(name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_cases():
    return sorted(os.listdir(BENCH))


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def as_csv(rows):
    """Rows as csv.DictReader gives them back: every value a string."""
    return [{k: "" if v is None else str(v) for k, v in row.items()} for row in rows]


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def run_script(name, *args, protocol=None):
    """(exit status, stdout + stderr) of scripts/<name> run as make runs it,
    with WB_PROTOCOL naming <protocol> when given."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("WB_PROTOCOL", None)
    if protocol:
        env["WB_PROTOCOL"] = protocol
    run = subprocess.run([sys.executable, script_path(name), *args],
                         capture_output=True, text=True, env=env)
    return run.returncode, run.stdout + run.stderr


def run_report(case, out, protocol=None):
    """report.py on a tests/bench/<case> directory (any root), into <out>."""
    args = [out, os.path.join(case, "baseline"), os.path.join(case, "patched"), "tcg"]
    if os.path.isdir(os.path.join(case, "workloads")):
        args += [os.path.join(case, "workloads", "baseline"),
                 os.path.join(case, "workloads", "patched")]
    return run_script("report.py", *args, protocol=protocol)


class Renamed:
    """A copy of guest/protocol.sh with some values renamed, and fixtures
    copied with the same text renamed in their contents and file names:
    what a rename in the protocol file must be enough for."""

    def __init__(self, renames):
        self.renames = renames      # {protocol name: new value}
        self.dir = tempfile.mkdtemp(prefix="wb-renamed-")
        self.old = {name: self.value(name) for name in renames}
        self.protocol = os.path.join(self.dir, "protocol.sh")
        with open(self.protocol, "w") as out:
            out.write(self.rewrite_protocol(read(PROTOCOL)))

    @staticmethod
    def value(name):
        import protocol
        return protocol.load(PROTOCOL)[name]

    def rewrite_protocol(self, text):
        for name, new in self.renames.items():
            text, count = re.subn(rf'^{name}=.*$', f'{name}="{new}"', text, flags=re.M)
            assert count == 1, f"{name} is not assigned once in {PROTOCOL}"
        return text

    def rewrite(self, text, pattern):
        """<text> with each renamed value replaced where <pattern> (a format
        with {old}) finds it."""
        for name, new in self.renames.items():
            old = self.old[name]
            text = text.replace(pattern.format(old=old), pattern.format(old=new))
        return text

    def file_name(self, file):
        """A console's file name, <mode>.log or <mode>-smp.log, with its
        mode renamed."""
        for name, new in self.renames.items():
            for suffix in (".log", "-smp.log"):
                if name.startswith("WB_MODE_") and file == self.old[name] + suffix:
                    return new + suffix
        return file

    def copy_tree(self, source, pattern=None):
        """<source> copied into the scratch directory, the consoles named by
        their renamed modes, each file's contents rewritten with <pattern>
        when given."""
        target = os.path.join(self.dir, os.path.basename(source))
        for top, _, files in os.walk(source):
            into = os.path.join(target, os.path.relpath(top, source))
            os.makedirs(into, exist_ok=True)
            for file in files:
                text = read(os.path.join(top, file))
                with open(os.path.join(into, self.file_name(file)), "w") as out:
                    out.write(self.rewrite(text, pattern) if pattern else text)
        return target

    def close(self):
        shutil.rmtree(self.dir)
