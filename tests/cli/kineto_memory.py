#!/usr/bin/env python3
"""Guards the streaming readers: `explain` on a large torch.profiler trace, and on the StreamLab
trace `import` makes of it, must not hold a document tree of either. Writes a synthetic trace
shaped like a real training profile (per op: a PyTorch op with input shapes and a call stack,
its launch, its kernel, a flow pair and Python frames; most of the bytes are in what the
importer does not read), runs `streamlab-cli explain` on it, and fails if the run's peak memory
exceeds LIMIT times the file's size. The whole-document reader needed 8.4x on HTA's 54 MB
trace; the streaming one 2.9x, which counts the file's text (held once) and the imported
trace. For the saved trace the limit is on what `explain` takes beyond what it takes for a tiny
trace, SAVED_LIMIT times the file's size: 4.4x now that it is read from its text (measured
through tests/cli/peak_memory, which gives the command's own peak; the figures once written
here, 7.7x as a tree and 1.3x from its text, were taken against this script's own memory,
which a child started from Python carries into its figure). A real torch.profiler trace has several PyTorch ops (ranges) per
launch: the committed item_every_step.json repeated 40 times (32 MB, bench/repeat_kineto.py) is
held to REAL_LIMIT times its size beyond a tiny trace's memory: 3.5x when every range was kept
as two API calls, 1.8x now that ranges are kept as marks (1.4x against this script's memory). A trace whose bytes are nearly all in
events the importer skips (Python frames with their stacks, as with_stack=True writes) is held
to SKIP_LIMIT times its size beyond a tiny trace's memory: 0.8x when the whole text was searched
for the kind of document it is (every page resident at once), 0.2x now that only its first
keys are read.
Usage: kineto_memory.py CLI WORK_DIR [OPS] [LIMIT] [SAVED_LIMIT] [REAL_LIMIT] [SKIP_LIMIT]"""
import json
import os
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


def write_mostly_skipped(path, frames):
    """A trace of `frames` Python frame events (2.6 KB each, stack included) and 50 launches."""
    stack = ";".join(f"/work/course/module_{n}.py({n}): function_{n}" for n in range(60))
    events = [{"ph": "X", "cat": "python_function", "name": f"model.py({i % 50}): forward", "pid": 1, "tid": 1,
               "ts": 1000.0 + 6 * i, "dur": 5.0, "args": {"Python id": i, "Python parent id": i - 1, "stack": stack}}
              for i in range(frames)]
    for corr in range(1, 51):
        ts = 1000.0 + corr * 100
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
                       "dur": 4.0, "args": {"External id": corr, "cbid": 211, "correlation": corr}})
        events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts + 10, "dur": 6.0,
                       "args": {"External id": corr, "device": 0, "context": 1, "stream": 7, "correlation": corr,
                                "grid": [1, 1, 1], "block": [32, 1, 1]}})
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
             "traceEvents": events}
    with open(path, "w") as f:
        json.dump(trace, f)


PEAK_HELPER = os.environ.get("STREAMLAB_PEAK_MEMORY")  # tests/cli/peak_memory, set by CTest


def run_measured(cmd, out_path):
    """Runs cmd with its output in out_path; returns (exit code, peak memory in bytes, output).
    Through the peak_memory helper the figure is the command's own; without it, a child of this
    process carries this process's memory high-water mark too."""
    if PEAK_HELPER:
        peak_file = out_path + ".peak"
        with open(out_path, "w") as out:
            code = subprocess.run([PEAK_HELPER, peak_file] + cmd, stdout=out, stderr=subprocess.STDOUT).returncode
        with open(peak_file) as f:
            peak = int(f.read())
        with open(out_path) as f:
            return code, peak, f.read()
    with open(out_path, "w") as out:
        child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
    with open(out_path) as f:
        return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, f.read()  # Linux: KiB


def check(what, cli, path, limit, work, baseline=0):
    size = os.path.getsize(path)
    code, peak, output = run_measured([cli, "explain", path], os.path.join(work, "explain.txt"))
    ratio = (peak - baseline) / size
    beyond = f" beyond the {baseline / 1e6:.0f} MB of a tiny trace" if baseline else ""
    print(f"{what}: {size / 1e6:.1f} MB, exit {code}, peak memory {peak / 1e6:.0f} MB "
          f"({ratio:.1f}x the file{beyond}; limit {limit}x)")
    if code != 0:
        print(output[-2000:])
        return False
    if "(kineto: NVIDIA H100 80GB HBM3)" not in output:  # the devices, listed before the events
        print("explain did not read the trace's device:\n" + output[:400])
        return False
    return ratio <= limit


def saved_trace(cli, work, ops):
    """A torch.profiler trace of `ops` ops written by another process, and its import."""
    kineto = os.path.join(work, f"kineto_{ops}.json")
    saved = os.path.join(work, f"saved_{ops}.json")
    # Another process: a child's peak memory starts from its parent's at the fork, and this one
    # would hold the whole trace while writing it.
    subprocess.run([sys.executable, __file__, "--write", kineto, str(ops)], check=True)
    code, _, output = run_measured([cli, "import", kineto, "--out", saved], os.path.join(work, "import.txt"))
    if code != 0:
        sys.exit(output[-2000:])
    return kineto, saved


def main():
    cli, work = sys.argv[1], sys.argv[2]
    ops = int(sys.argv[3]) if len(sys.argv) > 3 else 12000
    limit = float(sys.argv[4]) if len(sys.argv) > 4 else 4.5
    saved_limit = float(sys.argv[5]) if len(sys.argv) > 5 else 5.5
    real_limit = float(sys.argv[6]) if len(sys.argv) > 6 else 2.5
    skip_limit = float(sys.argv[7]) if len(sys.argv) > 7 else 0.4
    os.makedirs(work, exist_ok=True)
    kineto, saved = saved_trace(cli, work, ops)
    ok = check(f"torch.profiler trace of {ops} ops", cli, kineto, limit, work)
    _, tiny = saved_trace(cli, work, 10)
    _, baseline, _ = run_measured([cli, "explain", tiny], os.path.join(work, "explain.txt"))
    ok = check("its saved trace", cli, saved, saved_limit, work, baseline) and ok
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    real = os.path.join(work, "item_every_step_x40.json")
    subprocess.run([sys.executable, os.path.join(root, "bench", "repeat_kineto.py"),
                    os.path.join(root, "tests", "fixtures", "kineto", "item_every_step.json"), "40", real], check=True)
    ok = check("item_every_step.json repeated 40 times", cli, real, real_limit, work, baseline) and ok
    skipped = os.path.join(work, "mostly_skipped.json")
    subprocess.run([sys.executable, __file__, "--write-skipped", skipped, "24000"], check=True)
    ok = check("a trace of Python frames and 50 launches", cli, skipped, skip_limit, work, baseline) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "--write":
        write_trace(sys.argv[2], int(sys.argv[3]))
        sys.exit(0)
    if sys.argv[1] == "--write-skipped":
        write_mostly_skipped(sys.argv[2], int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main())
