#!/usr/bin/env python3
"""Checks StreamLab's explanations of the corpus of real programs (tests/corpus/) against what a
correct explanation says, written before StreamLab's output was read (expect/NAME.json):
each expected cause in the verdict (its first 10 lines), each listed false statement absent,
no more warnings than the program deserves, and, where given, the steps found and the steady
median within a share of the median the program printed itself (traces/NAME.stdout).

The structured fields (bound, top, race, processes, steps per process, straggler) are read from
`explain --json`'s "verdict", in the account's words (tests/corpus/README.md).

Usage: check_corpus.py CLI [--heldout | --half FOLDER] [NAME...]   (exit 1 on any failure, listing each)
  --heldout: the held-out half (heldout/), run only at the end of a session"""
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


def printed_medians_ms(base, name):
    """The medians the program printed, in order (a torchrun job: one per rank, "rank R: ...")."""
    path = os.path.join(base, "traces", name + ".stdout")
    kept = os.path.join(os.environ.get("STREAMLAB_CORPUS_TRACES", ""), name + ".stdout")
    if os.environ.get("STREAMLAB_CORPUS_TRACES") and os.path.exists(kept):  # the re-recording's own run
        path = kept
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = {}
    # Ranks print at once into one stdout: one rank's line may run into the next's, so each
    # "rank R: ... median step X ms" is read where it is, not a line at a time.
    ranked = re.findall(r"\brank (\d+):[^\n]*?median step ([0-9.]+) ms", text)
    if ranked:
        return {int(rank): float(ms) for rank, ms in ranked}
    for i, m in enumerate(re.finditer(r"median step ([0-9.]+) ms", text)):
        out[i] = float(m.group(1))
    return out


def place_of(site):
    """A fix's or race side's place as "file.py:LINE" (the line the call was made on, or the frame's first)."""
    if not site or "file" not in site:
        return ""
    line = site.get("line", site.get("most_line", site.get("first_line", 0)))
    return os.path.basename(site["file"]) + ":" + str(line)


KIND_ALIASES = {("gpu_queued", "module_load"): "queued_module_load"}


def check_structured(expect, data, verdict, base, name):
    problems = []
    v = data.get("verdict") or {}
    processes = v.get("processes", [])
    if "processes" in expect and len(processes) != expect["processes"]:
        problems.append(f"{len(processes)} processes in the verdict (expected {expect['processes']})")
    if "bound" in expect and v.get("bound") not in expect["bound"]:
        problems.append(f"bound {v.get('bound')} (expected one of {expect['bound']})")
    fixes = v.get("fixes", [])
    shown = [i for i in range(len(fixes)) if any(l.lstrip().startswith(f"{i + 1}. ") for l in verdict)]
    for want in expect.get("top", []):
        within = want.get("within", 3)
        kind = KIND_ALIASES.get((want.get("category"), want.get("kind")), want.get("kind"))
        ok = False
        for i, f in enumerate(fixes[:within]):
            if "category" in want and f.get("category") != want["category"]:
                continue
            if kind and f.get("time_kind") != kind and f.get("kind") != kind:
                continue
            if "place" in want and not re.search(want["place"], place_of(f.get("site"))):
                continue
            ok = i in shown
            if ok:
                break
        if not ok:
            problems.append(f"no fix {want} among the first {within} shown in the verdict: "
                            + "; ".join(f"{f.get('category')}/{f.get('time_kind')} {place_of(f.get('site'))}" for f in fixes[:within]))
    race = expect.get("race")
    races = v.get("races", [])
    if race is False and races:
        problems.append(f"says a race: {races[0].get('first_call')} / {races[0].get('second_call')}")
    if race:
        want = race if isinstance(race, dict) else {"expected": True}
        if not races:
            problems.append("no race in the verdict")
        elif not verdict or "wrong results first" not in verdict[0]:
            problems.append("the race is not the verdict's first line")
        else:
            places = [place_of(r.get("first_site")) + " " + place_of(r.get("second_site")) for r in races]
            for pattern in want.get("places", []):
                if not any(re.search(pattern, p) for p in places):
                    problems.append(f"no race at /{pattern}/ (races at {places})")
    if "straggler" in expect and v.get("straggler") != expect["straggler"]:
        problems.append(f"straggler {v.get('straggler')} (expected {expect['straggler']})")
    steps = expect.get("steps")
    if steps and processes:
        printed = printed_medians_ms(base, name)
        for k, p in enumerate(processes):
            found = p["steps"]["found"]
            if not steps["min"] <= found <= steps["max"]:
                problems.append(f"{p.get('name') or 'the process'}: {found} steps found (expected {steps['min']}..{steps['max']})")
            if "median_within" in steps:
                m = re.search(r"rank (\d+)", p.get("name", ""))
                mine = printed.get(int(m.group(1)) if m else k)
                ns = p["steps"].get("gpu_paced_ns") or p["steps"]["median_ns"]
                if mine is None or abs(ns / 1e6 - mine) > steps["median_within"] * mine:
                    problems.append(f"{p.get('name') or 'the process'}: steady step {ns / 1e6:.3f} ms vs the program's own {mine} ms")
    return problems


def check(cli, name, expect, trace, base):
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
    problems += check_structured(expect, data, verdict, base, name)
    return problems


def main():
    cli, names = sys.argv[1], sys.argv[2:]
    base = HERE
    if "--heldout" in names:
        names.remove("--heldout")
        base = os.path.join(HERE, "heldout")
    if "--half" in names:  # another half's folder under tests/corpus/ (heldout2)
        at = names.index("--half")
        base = os.path.join(HERE, names[at + 1])
        del names[at:at + 2]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(os.listdir(os.path.join(base, "expect"))):
            name = path[:-len(".json")]
            if names and name not in names:
                continue
            with open(os.path.join(base, "expect", path), encoding="utf-8") as f:
                expect = json.load(f)
            packed = os.path.join(base, "traces", name + ".json.xz")
            # A trace kept out of git (trace_committed: false), or a re-recording, is read from a
            # folder of one's own when it holds one: STREAMLAB_CORPUS_TRACES=DIR with NAME.json.xz.
            kept = os.path.join(os.environ.get("STREAMLAB_CORPUS_TRACES", ""), name + ".json.xz")
            if os.environ.get("STREAMLAB_CORPUS_TRACES") and os.path.exists(kept):
                packed = kept
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
            problems = check(cli, name, expect, trace, base)
            print(("ok   " if not problems else "FAIL ") + name)
            for p in problems:
                print("     - " + p)
            failed += bool(problems)
    print(f"{failed} program(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
