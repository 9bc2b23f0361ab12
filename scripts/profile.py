#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the profile job's console (guest/profile.sh) and print where a
one-page map/unmap pair spends its guest instructions, step by step.

The job traces only functions that do not call one another, one or more
per step, so each one's time is its step's. ftrace's function profiler
adds the same instructions to every traced call (-icount makes that cost
the same on every call): part of them inside the traced function's time,
which iommu_get_dma_domain(), a few instructions of its own, measures;
that part is taken out of each step. What the steps leave of the map's and
the unmap's time without the profiler is the DMA layer around them. Under -icount the
times are guest instructions (2^shift ns each): they say nothing of caches,
IOTLB misses or VM exits.

Usage: profile.py <console log> [<console log> ...]
"""
import json
import re
import sys

STAT = re.compile(r'^\s*(\S+)\s+(\d+)\s+([\d.]+) us\s')
# The profiler's share inside a traced call: a function of a few instructions
PROBE = 'iommu_get_dma_domain'

STEPS = {
    'iommu_dma_alloc_iova': 'map: IOVA allocation (per-CPU cache)',
    'iommu_map_nosync': 'map: page-table walk and PTE store (with clflush)',
    'intel_iommu_iotlb_sync_map': 'map: iotlb_sync_map (VT-d)',
    'iommu_iova_to_phys': 'unmap: physical-address walk',
    'iommu_unmap_fast': 'unmap: page-table walk, PTE clear, gather',
    'fq_ring_free_locked': 'unmap, lazy: flush queue frees flushed IOVAs',
    'intel_iommu_tlb_sync': 'unmap, strict: IOTLB invalidation and wait',
    'free_iova_fast': 'unmap, strict: IOVA free (per-CPU cache)',
    'iommu_put_pages_list': 'unmap, strict: page-table pages freed',
}
REST = '{}: DMA layer around its steps (entry, checks, locks{})'


def blocks(path):
    """Yield (label, json result, {function: (hits, time in ns)})."""
    label, result, stats = None, None, {}
    with open(path, errors='replace') as log:
        for line in log:
            line = line.rstrip('\r\n')
            if line.startswith('WB-PROFILE-BEGIN '):
                label, result, stats = line.split(' ', 1)[1], None, {}
            elif line.startswith('WB-PROFILE-END') and label:
                yield label, result, stats
                label = None
            elif label and line.startswith('{'):
                result = json.loads(line)
            elif label:
                m = STAT.match(line)
                if m:
                    stats[m.group(1)] = (int(m.group(2)), float(m.group(3)) * 1000)


def pair_ns(result):
    return result['map']['mean_ns'] + result['unmap']['mean_ns']


def steps_per_pair(result, stats):
    """{step: (calls per pair, ns per pair without the profiler)}"""
    ops = result['ops']
    if PROBE not in stats:
        sys.exit(f'no time for {PROBE}: the profiler did not trace it')
    hits, time = stats[PROBE]
    inside = time / hits
    return {STEPS[name]: (hits / ops, (time - inside * hits) / ops)
            for name, (hits, time) in stats.items() if name in STEPS}


def report(path):
    runs = {label: result_stats for label, *result_stats in blocks(path)}
    if any(label not in runs or runs[label][0] is None for label in ('off', 'profiled')):
        sys.exit(f'{path}: the profile job did not finish (no "off" or "profiled" run)')
    off = runs['off'][0]
    steps = steps_per_pair(*runs['profiled'])
    pair = pair_ns(off)
    # What each side's steps leave of its time; below zero, the profiler
    # made that side's steps dearer than they are (an upper bound, then).
    for side, extra in (('map', ''), ('unmap', ', queue insert')):
        traced = sum(ns for step, (_, ns) in steps.items() if step.startswith(side))
        steps[REST.format(side, extra)] = (1.0, off[side]['mean_ns'] - traced)
    print(f'# {path}: domain {off["domain"]}, one page, one thread, -icount: '
          f'map {off["map"]["mean_ns"]} + unmap {off["unmap"]["mean_ns"]} = {pair} ns '
          f'(means, without the profiler)')
    print(f'{"step":64} {"calls/pair":>10} {"ns/pair":>8} {"share":>6}')
    for step, (calls, ns) in sorted(steps.items(), key=lambda kv: -kv[1][1]):
        print(f'{step:64} {calls:10.3f} {ns:8.0f} {ns / pair:6.1%}')
    print()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        report(path)


if __name__ == '__main__':
    main()
