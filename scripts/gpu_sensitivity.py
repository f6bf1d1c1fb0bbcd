#!/usr/bin/env python3
"""On the GPU machine: the measured test of what bounds a program's step. Each program of
tests/corpus/sensitivity.json runs as written and with its batch halved (its `subs` applied to a
copy), alternately, unrecorded, ROUNDS times each; the ratio of the medians of their printed
median steps says which side bounds the step: near 0.5 the GPU, near 1.0 the host (the GPU work
halves, the launches and the host's own work do not). No rule of `explain` reads this; it checks
the account's bound (docs/account.md, "Checked by experiment").

Usage: gpu_sensitivity.py OUT_DIR [--rounds N] [NAME...]   (writes OUT_DIR/sensitivity.json)"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "corpus")
MEDIAN = re.compile(r"median step ([0-9.]+) ms")


def scaled_copy(entry, out_dir):
    """The program with its batch halved, beside the original's name (its imports are unchanged)."""
    with open(os.path.join(CORPUS, entry["python"])) as f:
        text = f.read()
    for old, new in entry["subs"]:
        if old not in text:
            raise SystemExit(f"{entry['name']}: '{old}' is not in {entry['python']}")
        text = text.replace(old, new)
    path = os.path.join(out_dir, entry["name"] + "_half.py")
    with open(path, "w") as f:
        f.write(text)
    return path


def median_step(path, log):
    """The program's printed median step in ms (None when it failed or printed none)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(CORPUS, "programs"))
    start = time.time()
    run = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True, timeout=300)
    log.write(f"$ {path} ({time.time() - start:.1f} s, status {run.returncode})\n{run.stdout}{run.stderr[-2000:]}\n")
    found = MEDIAN.search(run.stdout)
    return float(found.group(1)) if run.returncode == 0 and found else None


def main():
    args = sys.argv[1:]
    out_dir, rounds = args.pop(0), 2
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(CORPUS, "sensitivity.json")) as f:
        entries = [e for e in json.load(f)["programs"] if not args or e["name"] in args]
    results = []
    with open(os.path.join(out_dir, "sensitivity.log"), "w") as log:
        for e in entries:
            original, half = os.path.join(CORPUS, e["python"]), scaled_copy(e, out_dir)
            full_ms, half_ms = [], []
            for _ in range(rounds):  # alternately: the host's speed drifts between processes
                full_ms.append(median_step(original, log))
                half_ms.append(median_step(half, log))
            ok_full, ok_half = [m for m in full_ms if m], [m for m in half_ms if m]
            ratio = statistics.median(ok_half) / statistics.median(ok_full) if ok_full and ok_half else None
            results.append({"name": e["name"], "full_ms": full_ms, "half_ms": half_ms, "ratio": ratio})
            print(f"{e['name']}: full {full_ms} ms, half batch {half_ms} ms, ratio {ratio}", flush=True)
    with open(os.path.join(out_dir, "sensitivity.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
