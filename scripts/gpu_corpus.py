#!/usr/bin/env python3
"""On the GPU machine: builds and records the corpus programs a manifest lists
(tests/corpus/MANIFEST.json, the development half; tests/corpus/heldout/MANIFEST.json, the
held-out half), each with `streamlab-cli record`, keeping the program's own output beside its
trace. The development half is also explained; the held-out half is NOT (its explanations are
read only at the end of a session, tests/corpus/README.md).

Usage: gpu_corpus.py OUT_DIR CLI [--half dev|heldout|heldout2|heldout3|heldout4|heldout5|heldout6|heldout7|heldout8|heldout9|all] [--gpus N] [NAME...]
  CLI: the streamlab-cli built on this machine (scripts/gpu_build.sh)
A manifest entry: {"name", "gpus", one of "python": FILE | "torchrun": {"nproc", "script"} |
"sample": "Samples/.../dir" (+ "libs", "args") | "cuda": FILE.cu, "env": {...}}. Samples come from
.corpus/cuda-samples (scripts/corpus_samples.sh copies them there; none is committed).
Writes OUT_DIR/corpus/NAME.json, NAME.stdout, NAME.record.txt (record's own lines), and
OUT_DIR/corpus/summary.txt."""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, ".corpus", "cuda-samples")
if not os.path.isdir(SAMPLES):  # the whole set the sweep uses (scripts/corpus_samples_all.sh)
    SAMPLES = os.path.join(ROOT, ".corpus", "cuda-samples-all")
# The development half, and each held-out half (a new one is written, blind, when the last was seen).
HALVES = {"dev": os.path.join(ROOT, "tests", "corpus"), "heldout": os.path.join(ROOT, "tests", "corpus", "heldout"),
          "heldout2": os.path.join(ROOT, "tests", "corpus", "heldout2"),
          "heldout3": os.path.join(ROOT, "tests", "corpus", "heldout3"),
          "heldout4": os.path.join(ROOT, "tests", "corpus", "heldout4"),
          "heldout5": os.path.join(ROOT, "tests", "corpus", "heldout5"),
          "heldout6": os.path.join(ROOT, "tests", "corpus", "heldout6"),
          "heldout7": os.path.join(ROOT, "tests", "corpus", "heldout7"),
          "heldout8": os.path.join(ROOT, "tests", "corpus", "heldout8"), "heldout9": os.path.join(ROOT, "tests", "corpus", "heldout9")}


def build(entry, half_dir, bin_dir, log):
    """The binary to run for a CUDA program or a cuda-sample, built with plain nvcc (None on failure)."""
    out = os.path.join(bin_dir, entry["name"])
    if "cuda" in entry:
        sources, include, cwd = [os.path.join(half_dir, "programs", entry["cuda"])], [], half_dir
    else:
        src = os.path.join(SAMPLES, entry["sample"])
        sources = [os.path.join(src, f) for f in sorted(os.listdir(src)) if f.endswith((".cu", ".cpp"))]
        include, cwd = ["-I", os.path.join(SAMPLES, "Common")], src
    cmd = ["nvcc", "-O2", "-arch=sm_90", "-std=c++17", *include, *sources, "-o", out, "-lpthread", *entry.get("libs", [])]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    log.write(f"{entry['name']}: build exit {run.returncode}\n{run.stderr[-2000:]}\n")
    return out if run.returncode == 0 else None


def command_of(entry, half_dir, binary):
    programs = os.path.join(half_dir, "programs")
    if "python" in entry:
        return ["python3", os.path.join(programs, entry["python"])], ROOT
    if "torchrun" in entry:
        t = entry["torchrun"]
        return ["torchrun", f"--nproc_per_node={t['nproc']}", os.path.join(programs, t["script"])], ROOT
    cwd = os.path.join(SAMPLES, entry["sample"]) if "sample" in entry else ROOT
    return [binary, *entry.get("args", [])], cwd


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, cli = os.path.abspath(args[0]), os.path.abspath(args[1])
    half, gpus, names = "all", None, []
    rest = args[2:]
    while rest:
        a = rest.pop(0)
        if a == "--half":
            half = rest.pop(0)
        elif a == "--gpus":
            gpus = int(rest.pop(0))
        else:
            names.append(a)
    corpus, bin_dir = os.path.join(out, "corpus"), os.path.join(out, "bin")
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(bin_dir, exist_ok=True)
    summary = open(os.path.join(corpus, "summary.txt"), "a")
    build_log = open(os.path.join(corpus, "build.log"), "a")
    for which, half_dir in HALVES.items():
        if half not in ("all", which):
            continue
        manifest = os.path.join(half_dir, "MANIFEST.json")
        if not os.path.exists(manifest):
            continue
        for entry in json.load(open(manifest))["programs"]:
            name = entry["name"]
            if (names and name not in names) or (gpus is not None and entry.get("gpus", 1) != gpus):
                continue
            binary = None
            if "cuda" in entry or "sample" in entry:
                binary = build(entry, half_dir, bin_dir, build_log)
                if binary is None:
                    summary.write(f"{which} {name}: build failed\n")
                    continue
            cmd, cwd = command_of(entry, half_dir, binary)
            env = dict(os.environ, NCCL_NVLS_ENABLE="0", PYTHONUNBUFFERED="1",
                       PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "tests", "corpus", "programs"),
                                                   os.path.join(half_dir, "programs")]))
            env.update({k: str(v) for k, v in entry.get("env", {}).items()})
            trace = os.path.join(corpus, name + ".json")
            t0 = time.time()
            with open(os.path.join(corpus, name + ".stdout"), "w") as stdout:
                try:
                    rc = subprocess.run([cli, "record", "--out", trace, "--", *cmd], cwd=cwd, env=env, stdout=stdout,
                                        stderr=subprocess.STDOUT, timeout=entry.get("timeout", 240)).returncode
                except subprocess.TimeoutExpired:
                    rc = "timeout"
            summary.write(f"{which} {name}: record exit {rc} in {time.time() - t0:.0f} s\n")
            summary.flush()
            if which == "dev" and os.path.exists(trace):
                with open(os.path.join(corpus, name + ".explain.txt"), "w") as f:
                    subprocess.run([cli, "explain", trace], stdout=f, stderr=subprocess.STDOUT, timeout=300)
    return 0


if __name__ == "__main__":
    sys.exit(main())
