# SPDX-License-Identifier: GPL-2.0
"""The rounded ratios of the report's tables, one definition for the
benchmark's (report.py, per_patch.py) and the workloads' (workload_table.py)."""


def ratio(a, b):
    """a / b to two places, or None when either is missing (or b is 0)."""
    return round(a / b, 2) if a is not None and b else None


def per_thousand(calls, ops):
    """Calls per 1000 operations to one place, or None."""
    return round(calls * 1000 / ops, 1) if ops and calls is not None else None
