#!/usr/bin/env python3
"""Writes scenarios/gpu-facts/*.json: one scenario per row of shared/GPU-FACTS.md's table.

Each file is a plain StreamLab scenario (the format `streamlab-cli run FILE` takes), so a
row can be re-measured on any GPU with `streamlab-cli run FILE --backend cuda` and compared
with the simulator's `--backend sim`. tests/test_gpu_facts.cpp checks the simulator's
orderings on these files. Re-run this script after changing it; its output is committed.
"""
import json
import pathlib

OUT = pathlib.Path(__file__).resolve().parent.parent / "scenarios" / "gpu-facts"
MB64 = 64 << 20


def scenario(name, streams, ops, events=(), buffers=(), **settings):
    s = {"kind": "streamlab.scenario", "schema": 1, "name": name, "device_count": 1,
         "settings": {"max_connections": 8, "lazy_loading": True, "launch_blocking": False,
                      "warmup": True, **settings},
         "streams": streams, "events": list(events), "buffers": list(buffers), "ops": ops}
    return s


def stream(name, kind="created", non_blocking=False, priority=0):
    d = {"name": name, "kind": kind, "device": 0}
    if non_blocking:
        d["non_blocking"] = True
    if priority:
        d["priority"] = priority
    return d


def spin(name, stream_name, us, grid=4, block=128, slot=0):
    k = {"kind": "spin", "grid": grid, "block": block, "work": int(us * 1000)}
    if slot:
        k["function_slot"] = slot
    return {"op": "kernel", "name": name, "stream": stream_name, "kernel": k}


SYNC = {"op": "sync_device"}


def between(name, middle_ops, extra_streams=(), buffers=(), s_nb=False):
    """s1 kernel, then the call under test, then s2 kernel (1 ms, 4 blocks each)."""
    return scenario(name,
                    [stream("s1", non_blocking=s_nb), stream("s2", non_blocking=s_nb), *extra_streams],
                    [spin("k_s1", "s1", 1000), *middle_ops, spin("k_s2", "s2", 1000), SYNC],
                    buffers=buffers)


def write(s):
    (OUT / (s["name"] + ".json")).write_text(json.dumps(s, indent=1) + "\n")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    write(between("two-blocking-streams", []))
    write(scenario("legacy-between-blocking",
                   [stream("s1"), stream("legacy", "legacy_default"), stream("s2")],
                   [spin("k_s1", "s1", 1000), spin("k_legacy", "legacy", 1000),
                    spin("k_s2", "s2", 1000), SYNC]))
    write(scenario("legacy-between-non-blocking",
                   [stream("s1", non_blocking=True), stream("legacy", "legacy_default"),
                    stream("s2", non_blocking=True)],
                   [spin("k_s1", "s1", 1000), spin("k_legacy", "legacy", 1000),
                    spin("k_s2", "s2", 1000), SYNC]))
    write(scenario("per-thread-between-blocking",
                   [stream("s1"), stream("per-thread", "per_thread_default"), stream("s2")],
                   [spin("k_s1", "s1", 1000), spin("k_pt", "per-thread", 1000),
                    spin("k_s2", "s2", 1000), SYNC]))
    dev64 = {"name": "d", "kind": "device", "device": 0, "bytes": MB64}
    write(between("malloc-between", [{"op": "malloc", "buffer": "d"}], buffers=[dev64]))
    write(between("free-between", [{"op": "free", "buffer": "d"}], buffers=[dev64]))
    write(scenario("memset-between",
                   [stream("s1"), stream("s2"), stream("legacy", "legacy_default")],
                   [spin("k_s1", "s1", 1000),
                    {"op": "memset", "name": "cudaMemset", "stream": "legacy", "buffer": "d",
                     "bytes": 1 << 20, "value": 0, "async": False},
                    spin("k_s2", "s2", 1000), SYNC], buffers=[dev64]))
    for kind in ("pageable", "pinned"):
        host = {"name": "h", "kind": kind, "device": 0, "bytes": MB64}
        write(between(f"{kind}-copy-between",
                      [{"op": "memcpy", "name": f"H2D {kind} 64MB", "stream": "copy", "src": "h",
                        "dst": "d", "bytes": MB64}],
                      extra_streams=[stream("copy", non_blocking=True)], buffers=[host, dev64]))
    # wait_event on an event recorded before s1 had any work: captures nothing.
    write(scenario("wait-on-empty-record", [stream("s1"), stream("s2")],
                   [{"op": "record", "stream": "s1", "event": "e"}, spin("k_s1", "s1", 1000),
                    {"op": "wait_event", "stream": "s2", "event": "e"}, spin("k_s2", "s2", 1000),
                    SYNC], events=[{"name": "e", "device": 0}]))
    # Priority: a low-priority flood of 20 waves x 50 us (1024-thread blocks, 2 per SM on
    # 132 SMs = 264 per wave); a kernel arrives ~300 us later on another stream.
    for label, prio in (("priority-pending-high", -5), ("priority-pending-same", 0)):
        write(scenario(label, [stream("low"), stream("late", priority=prio)],
                       [spin("flood", "low", 50, grid=264 * 20, block=1024),
                        {"op": "host_work", "name": "wait 300us", "duration_ns": 300000},
                        spin("late", "late", 50, grid=264, block=1024, slot=1), SYNC]))
    for label, prio in (("priority-resident-high", -5), ("priority-resident-same", 0)):
        write(scenario(label, [stream("low"), stream("late", priority=prio)],
                       [spin("flood", "low", 200, grid=264 * 2, block=1024),
                        {"op": "host_work", "name": "wait 250us", "duration_ns": 250000},
                        spin("late", "late", 50, grid=264, block=1024, slot=1), SYNC]))
    # Hardware queues: 32 streams x (A -> B), 1 block each, depth-first submission.
    for conns in (1, 8, 32):
        streams = [stream(f"s{i}") for i in range(32)]
        ops = []
        for i in range(32):
            ops.append(spin(f"A{i}", f"s{i}", 1000, grid=1, slot=0))
            ops.append(spin(f"B{i}", f"s{i}", 1000, grid=1, slot=1))
        write(scenario(f"hardware-queues-{conns}", streams, ops + [SYNC], max_connections=conns))
    # Lazy loading: 8 streams x (A -> B) with no warm-up, LAZY vs EAGER.
    for lazy in (True, False):
        streams = [stream(f"s{i}") for i in range(8)]
        ops = []
        for i in range(8):
            ops.append(spin(f"A{i}", f"s{i}", 1000, grid=1, slot=2))
            ops.append(spin(f"B{i}", f"s{i}", 1000, grid=1, slot=3))
        write(scenario("lazy-loading-" + ("lazy" if lazy else "eager"), streams, ops + [SYNC],
                       lazy_loading=lazy, warmup=False))


if __name__ == "__main__":
    main()
