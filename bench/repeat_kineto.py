#!/usr/bin/env python3
"""Writes a long torch.profiler trace made of a short one repeated: each copy's timestamps are
moved past the previous copy's end, and its correlation, External id and flow ids are made
unique. For timing readers on a large real-shaped trace without a GPU (bench/README.md).
Usage: repeat_kineto.py TRACE COPIES OUT"""
import json
import sys


def main():
    src, copies, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - min(e["ts"] for e in timed) + 1000
    head = {k: v for k, v in trace.items() if k != "traceEvents"}
    with open(out, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "traceEvents": [')
        first = True
        for copy in range(copies):
            for e in events:
                e = dict(e)
                if "ts" in e:
                    e["ts"] += copy * span
                if isinstance(e.get("args"), dict):
                    e["args"] = dict(e["args"])
                    for key in ("correlation", "External id"):
                        if key in e["args"]:
                            e["args"][key] += copy * 1000000
                if isinstance(e.get("id"), int):
                    e["id"] += copy * 1000000
                f.write(("" if first else ",\n") + json.dumps(e, separators=(",", ":")))
                first = False
        f.write("]}")


if __name__ == "__main__":
    main()
