#!/usr/bin/env python3
"""Guards explain's time and memory (bench/README.md): the corpus's GPT-2 training loop recording
(14 k ops, tests/corpus/traces/gpt2_train.json.xz) explained within MAX_SMALL seconds, and the same
loop's steady steps tiled to over a million ops explained within MAX_LARGE seconds and MAX_MB of
peak memory, stage by stage (bench/explain_stages).
Usage: explain_scale_check.py EXPLAIN_STAGES [MAX_SMALL MAX_LARGE MAX_MB]"""
import lzma
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(HERE, "..", "tests", "corpus", "traces", "gpt2_train.json.xz")


def run(tool, trace, *extra):
    r = subprocess.run([tool, trace, *extra], capture_output=True, text=True, timeout=600)
    print(r.stdout.strip())
    if r.returncode != 0:
        print(r.stderr.strip())
    return r.returncode


def main():
    tool = sys.argv[1]
    small, large, mb = (sys.argv[2:5] if len(sys.argv) >= 5 else ("1", "20", "4096"))
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "gpt2_train.json")
        with lzma.open(TRACE) as src, open(trace, "wb") as dst:
            dst.write(src.read())
        failed = run(tool, trace, "--max-seconds", small)
        failed |= run(tool, trace, "--repeat-steps", "75", "--max-seconds", large, "--max-peak-mb", mb)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
