#!/usr/bin/env python3
"""Guards the streaming torch.profiler reader: `explain` on a large trace must not hold a
document tree of it. Writes a synthetic trace shaped like a real training profile (per op:
a PyTorch op with input shapes and a call stack, its launch, its kernel, a flow pair and
Python frames; most of the bytes are in what the importer does not read), runs
`streamlab-cli explain` on it, and fails if the run's peak memory exceeds LIMIT times the
file's size. The whole-document reader needed 8.4x on HTA's 54 MB trace; the streaming one
2.9x, which counts the file's text (held once) and the imported trace.
Usage: kineto_memory.py CLI WORK_DIR [OPS] [LIMIT]"""
import json
import os
import resource
import subprocess
import sys


def write_trace(path, ops):
    events = []
    t = 1000.0
    for i in range(ops):
        corr = i + 1
        stack = ";".join(f"/work/model.py({n}): layer{n}" for n in range(12))
        events.append({"ph": "X", "cat": "python_function", "name": f"model.py(40): forward{i % 7}", "pid": 1,
                       "tid": 1, "ts": t, "dur": 9.0, "args": {"Python id": i, "Python parent id": i - 1}})
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": t + 0.5,
                       "dur": 8.0, "args": {"External id": corr, "Record function id": 0, "Sequence number": i,
                                            "Input Dims": [[1024], [64, 512], [512, 1024], [], []],
                                            "Input type": ["c10::BFloat16"] * 3 + ["Scalar", "Scalar"],
                                            "Input Strides": [[1], [512, 1], [1, 512], [], []],
                                            "Concrete Inputs": ["", "", "", "1", "1"], "Call stack": stack}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 2.0, "dur": 4.0, "args": {"External id": corr, "cbid": 211, "correlation": corr}})
        events.append({"ph": "s", "id": corr, "pid": 1, "tid": 1, "ts": t + 2.0, "cat": "ac2g", "name": "ac2g"})
        events.append({"ph": "X", "cat": "kernel", "name": "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn",
                       "pid": 0, "tid": 7, "ts": t + 12.0, "dur": 6.0,
                       "args": {"External id": corr, "queued": 0, "device": 0, "context": 1, "stream": 7,
                                "correlation": corr, "registers per thread": 168, "shared memory": 49152,
                                "blocks per SM": 0.97, "warps per SM": 3.9, "grid": [128, 1, 1],
                                "block": [128, 1, 1], "est. achieved occupancy %": 12}})
        events.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": t + 12.0, "cat": "ac2g", "name": "ac2g",
                       "bp": "e"})
        events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
                       "ts": t + 1.0, "args": {"Device Type": 1, "Device Id": 0, "Addr": 1234 + i, "Bytes": 4096,
                                               "Total Allocated": 1 << 30, "Total Reserved": 1 << 31}})
        t += 10.0
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
             "traceEvents": events, "traceName": "synthetic"}
    with open(path, "w") as f:
        json.dump(trace, f)


def main():
    cli, work = sys.argv[1], sys.argv[2]
    ops = int(sys.argv[3]) if len(sys.argv) > 3 else 12000
    limit = float(sys.argv[4]) if len(sys.argv) > 4 else 4.5
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "large_kineto.json")
    write_trace(path, ops)
    size = os.path.getsize(path)
    run = subprocess.run([cli, "explain", path], capture_output=True, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # Linux: KiB
    ratio = peak / size
    print(f"{size / 1e6:.1f} MB trace of {ops} ops: exit {run.returncode}, peak memory {peak / 1e6:.0f} MB "
          f"({ratio:.1f}x the file; limit {limit}x)")
    if run.returncode != 0:
        print(run.stderr.strip())
        return 1
    if "(kineto: NVIDIA H100 80GB HBM3)" not in run.stdout:  # the devices, listed before the events
        print("explain did not read the trace's device:\n" + run.stdout[:400])
        return 1
    return 0 if ratio <= limit else 1


if __name__ == "__main__":
    sys.exit(main())
