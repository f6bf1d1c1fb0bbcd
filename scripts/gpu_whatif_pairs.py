#!/usr/bin/env python3
"""On the GPU machine: records every what-if pair (tests/whatif_pairs/pairs.json), each program as
written ("before") and with its fix made by hand ("after"), RUNS processes each, alternating
before and after so the host's drift between processes falls on both alike.

Usage: scripts/gpu_whatif_pairs.py CLI OUT_DIR [RUNS] [NAME...]
Writes OUT_DIR/pairs/NAME.{before,after}.N.json (recordings), for a self-timed pair also
NAME.{before,after}.N.unrecorded.txt (its output run alone), and OUT_DIR/pairs/gpu.txt.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = os.path.join(HERE, "..", "tests", "whatif_pairs")


def main():
    cli, out = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    only = set(sys.argv[4:])
    progs = os.path.join(PAIRS, "programs")
    dest = os.path.join(out, "pairs")
    os.makedirs(os.path.join(dest, "bin"), exist_ok=True)
    with open(os.path.join(dest, "gpu.txt"), "w") as f:
        subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], stdout=f)
    pairs = json.load(open(os.path.join(PAIRS, "pairs.json")))["pairs"]
    log = open(os.path.join(dest, "log.txt"), "w")
    for p in pairs:
        if only and p["name"] not in only:
            continue
        prog = os.path.join(progs, p["program"])
        if prog.endswith(".cu"):
            binary = os.path.join(dest, "bin", p["name"])
            subprocess.run(["nvcc", "-O2", "-arch=sm_90", "-o", binary, prog], check=True, stdout=log, stderr=log)
            command = [binary]
        else:
            command = [sys.executable, prog]
        for n in range(runs):
            for side in ("before", "after"):
                env = dict(os.environ, PYTHONPATH=progs)
                env.update(p.get("env_" + side, {}))
                args = ["fixed"] if side == "after" and "env_after" not in p else []  # else the environment fixes it
                trace = os.path.join(dest, f"{p['name']}.{side}.{n}.json")
                r = subprocess.run([cli, "record", "--out", trace, "--"] + command + args, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                log.write(f"{p['name']} {side} {n}: exit {r.returncode}\n{r.stdout[-2000:]}\n")
                log.flush()
                if p.get("self_timed"):  # also alone: what the fix gives without the recorder's costs
                    r = subprocess.run(command + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    with open(os.path.join(dest, f"{p['name']}.{side}.{n}.unrecorded.txt"), "w") as f:
                        f.write(r.stdout)


if __name__ == "__main__":
    main()
