# SPDX-License-Identifier: GPL-2.0
"""Run inside gdb (scripts/run/insns.sh): attach to QEMU's gdbstub, single-step
some calls of each function named and write the address of every
instruction each call executed, as JSON: {function: [[pc, ...], ...]}.

A call is followed from its first instruction to the return to its caller
(the return address on the stack at entry, reached with the stack above
the entry's). QEMU steps with interrupts masked, so nothing else is mixed
in. gdb's convenience variables name the target ($target), the output
($output), the functions ($functions, separated by commas) and the calls
to step per function ($calls); the first is a warm-up and is dropped.
"""
import json

import gdb


def variable(name):
    return gdb.convenience_variable(name).string()


def register(expression):
    return int(gdb.parse_and_eval(expression)) & 0xffffffffffffffff


def step_call():
    entry_sp = register("$sp")
    return_to = register("*(unsigned long *)$sp")
    pcs = []
    while True:
        pc = register("$pc")
        if pc == return_to and register("$sp") > entry_sp:
            return pcs
        pcs.append(pc)
        gdb.execute("stepi", to_string=True)


def step_calls(function, calls):
    # On the first instruction, not after the prologue: the return address
    # must still be on top of the stack.
    breakpoint = gdb.Breakpoint("*" + function, internal=True)
    traces = []
    for _ in range(calls):
        gdb.execute("continue", to_string=True)
        breakpoint.enabled = False
        traces.append(step_call())
        breakpoint.enabled = True
    breakpoint.delete()
    return traces[1:]


gdb.execute("set pagination off")
gdb.execute(f"target remote {variable('target')}", to_string=True)
result = {f: step_calls(f, int(variable("calls"))) for f in variable("functions").split(",")}
with open(variable("output"), "w") as out:
    json.dump(result, out)
gdb.execute("detach", to_string=True)
