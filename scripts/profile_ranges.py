#!/usr/bin/env python3
"""Adds to a shipped profile the range each measured figure took over several calibrations of
the same GPU, each from another machine start (`streamlab-cli calibrate --out`). The point
figures stay the shipped profile's; a figure it never measured (0, e.g. graph_node_gap_ns in
an older profile, or a figure it does not have) takes the calibrations' median. Only figures that moved by more than 10 %
get a range. The simulator's `sim_fidelity` and the docs read the ranges
(engine/sim/profile_ranges.h; docs/evidence/simulator-fidelity.md).

  scripts/profile_ranges.py assets/profiles/h100.json "2026-11-22 and 2026-11-27" CAL.json... [--remeasured CAL.json...]

A figure whose calibration changed (REMEASURED) is taken only from the calibrations listed after
--remeasured, made since: its point is their median, its range theirs. Those calibrations count
for every other figure like the rest.
"""
import json
import statistics
import sys

# Structure and figures no calibration measures: never ranged.
FIXED = ("sm_count", "max_threads_per_sm", "max_blocks_per_sm", "priority_greatest", "priority_least",
         "schema", "peer_gbps", "replay_stream_gap_ns", "replay_graph_node_gap_ns",
         "replay_graph_node_gap_fast_ns", "recorded_kernel_gpu_cost_ns")


# cudaMalloc was timed right after cudaMallocHost until 2026-11-27, when an allocation costs the
# host 2 to 4 times as much as one made before any pinned allocation (bench/malloc_after_free.cu);
# a lab's or a program's set-up allocations are made before.
REMEASURED = ("malloc_base_ns", "malloc_per_mb_ns")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    args = sys.argv[3:]
    cut = args.index("--remeasured") if "--remeasured" in args else len(args)
    path, starts, calibrations, remeasured = sys.argv[1], sys.argv[2], args[:cut] + args[cut + 1:], args[cut + 1:]
    profile = json.load(open(path))
    others = [json.load(open(c)) for c in calibrations]
    newer = [json.load(open(c)) for c in remeasured]
    ranges = {}
    for o in others:  # a figure newer than the shipped calibration: 0 until filled below
        for key, value in o.items():
            if key not in profile and isinstance(value, (int, float)) and not isinstance(value, bool):
                profile[key] = 0
    for key, point in sorted(profile.items()):
        if key in FIXED or key.startswith("nccl_") or isinstance(point, bool) or not isinstance(point, (int, float)):
            continue
        measured = [o[key] for o in others if isinstance(o.get(key), (int, float)) and o[key] > 0]
        if key in REMEASURED and newer:
            measured = [o[key] for o in newer if isinstance(o.get(key), (int, float)) and o[key] > 0]
            point = profile[key] = round(statistics.median(measured))
        elif point == 0 and measured:  # never measured by the shipped calibration
            median = statistics.median(measured)
            point = profile[key] = round(median, 4) if any(isinstance(v, float) for v in measured) else round(median)
        values = [v for v in [point] + measured if v > 0]
        if len(values) < 2:
            continue
        low, high = min(values), max(values)
        if high > 1.10 * low:
            ranges[key] = [round(low, 4), round(high, 4)]
    profile["ranges"] = ranges
    profile["ranges_from"] = f"{len(calibrations) + 1} calibrations: {starts}"
    open(path, "w").write(json.dumps(profile, indent=1, sort_keys=True) + "\n")
    print(f"{path}: {len(ranges)} ranged figures: {', '.join(ranges)}")


if __name__ == "__main__":
    main()
