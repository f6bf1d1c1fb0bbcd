#!/usr/bin/env python3
"""Reads recordings of bench/tiny_kernel_modes.py: per NVTX range (graph, queued, isolated,
graph2), the median duration of its chain's kernels and the median gap from one kernel's end to
the next one's start on the same stream (back-to-back only: under 5 us), and the spacing of
their starts. One line per recording and range; the spin kernels are left out.

  bench/tiny_kernel_modes_read.py r0.json [r1.json ...]   (a .json.xz is read too)
"""
import json
import lzma
import statistics
import sys

MODES = ("graph", "queued", "isolated", "graph2")


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def chain_kernels(trace, begin, end):
    """The chain's kernels submitted inside [begin, end], by start: (start, end, stream)."""
    found = []
    for op, rec in zip(trace["scenario"]["ops"], trace["ops"]):
        if op.get("op") != "kernel" or "spin" in op.get("name", ""):
            continue
        if "start" not in rec or not begin <= rec["submit"] <= end:
            continue
        found.append((rec["start"], rec["end"], op.get("stream")))
    return sorted(found)


def figures(kernels):
    durations = [e - s for s, e, _ in kernels]
    gaps, spacing = [], []
    for (s0, e0, st0), (s1, _, st1) in zip(kernels, kernels[1:]):
        if st0 == st1 and 0 <= s1 - e0 < 5000:
            gaps.append(s1 - e0)
            spacing.append(s1 - s0)
    median = lambda v: statistics.median(v) if v else float("nan")
    return len(kernels), median(durations), median(gaps), median(spacing)


def main():
    for path in sys.argv[1:]:
        trace = load(path)
        for thread, begin, end, name in trace["ranges"]:
            if name not in MODES:
                continue
            n, duration, gap, spacing = figures(chain_kernels(trace, begin, end))
            print(f"{path} {name}: {n} kernels, duration {duration:.0f} ns, gap {gap:.0f} ns, "
                  f"start to start {spacing:.0f} ns (medians)")


if __name__ == "__main__":
    main()
