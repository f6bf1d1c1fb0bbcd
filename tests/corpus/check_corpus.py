#!/usr/bin/env python3
"""Checks StreamLab's explanations of the corpus of real programs (tests/corpus/) against what a
correct explanation says, written before StreamLab's output was read (expect/NAME.json):
each expected cause in the verdict (its first 10 lines), each listed false statement absent,
no more warnings than the program deserves, and, where given, the steps found and the steady
median within a share of the median the program printed itself (traces/NAME.stdout).

Usage: check_corpus.py CLI [NAME...]   (exit 1 on any failure, listing each)"""
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def explain(cli, trace, *flags):
    run = subprocess.run([cli, "explain", trace, "--lang", "en", *flags], capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"explain {trace} exited {run.returncode}: {run.stderr[-400:]}")
    return run.stdout


def verdict_lines(text):
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith(("Verdict:", "结论:"))), None)
    if start is None:
        return []
    out = []
    for line in lines[start:]:
        if line.startswith("About this trace") or line.startswith("["):
            break
        out.append(line)
    return out


def printed_median_ms(name):
    path = os.path.join(HERE, "traces", name + ".stdout")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"median step ([0-9.]+) ms", f.read())
    return float(m.group(1)) if m else None


def check(cli, name, expect, trace):
    problems = []
    text = explain(cli, trace)
    data = json.loads(explain(cli, trace, "--json"))
    verdict = verdict_lines(text)
    if len(verdict) > 10:
        problems.append(f"the verdict has {len(verdict)} lines (at most 10)")
    joined = "\n".join(verdict)
    for pattern in expect.get("verdict", []):
        if not re.search(pattern, joined):
            problems.append(f"verdict lacks /{pattern}/")
    for pattern in expect.get("present", []):
        if not re.search(pattern, text):
            problems.append(f"explain lacks /{pattern}/")
    for pattern in expect.get("absent", []):
        m = re.search(pattern, text)
        if m:
            problems.append(f"explain says /{pattern}/: ...{text[max(0, m.start() - 80):m.end() + 40]!r}")
    allowed = expect.get("allowed_warnings", [])
    warnings = [f["text"] for f in data["findings"] if f["severity"] == "warning"
                and not any(re.search(a, f["text"]) for a in allowed)]
    if len(warnings) > expect.get("max_warnings", 1 << 30):
        problems.append(f"{len(warnings)} warnings (at most {expect['max_warnings']}), first: {warnings[0][:200]}")
    for f in data["findings"]:
        if re.search(r"(?<![0-9.])0 ns\b", f["text"]):
            problems.append(f"a finding says 0 ns: {f['text'][:160]}")
    steps = expect.get("steps")
    if steps:
        found = data["verdict"]["steps"]["found"]
        if not steps["min"] <= found <= steps["max"]:
            problems.append(f"{found} steps found (expected {steps['min']}..{steps['max']})")
        if "median_within" in steps:
            printed = printed_median_ms(name)
            median = data["verdict"]["steps"]["median_ns"] / 1e6
            if printed is None or abs(median - printed) > steps["median_within"] * printed:
                problems.append(f"steady median {median:.3f} ms vs the program's own {printed} ms")
    return problems


def main():
    cli, names = sys.argv[1], sys.argv[2:]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(os.listdir(os.path.join(HERE, "expect"))):
            name = path[:-len(".json")]
            if names and name not in names:
                continue
            with open(os.path.join(HERE, "expect", path), encoding="utf-8") as f:
                expect = json.load(f)
            packed = os.path.join(HERE, "traces", name + ".json.xz")
            if not os.path.exists(packed):
                if expect.get("trace_committed", True):
                    print(f"FAIL {name}: no trace {packed}")
                    failed += 1
                else:
                    print(f"skip {name}: {expect.get('not_committed_because', 'trace not committed')}")
                continue
            trace = os.path.join(tmp, name + ".json")
            with lzma.open(packed) as src, open(trace, "wb") as dst:
                dst.write(src.read())
            problems = check(cli, name, expect, trace)
            print(("ok   " if not problems else "FAIL ") + name)
            for p in problems:
                print("     - " + p)
            failed += bool(problems)
    print(f"{failed} program(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
