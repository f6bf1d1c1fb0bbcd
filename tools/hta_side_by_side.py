#!/usr/bin/env python3
"""Holistic Trace Analysis (HTA) next to StreamLab on the same torch.profiler traces.

For each Kineto trace in a folder: HTA's per-stream idle-time breakdown and its
critical-path summary, next to the main findings of `streamlab-cli explain` on the same
file, and how long each tool took. Writes a Markdown table.

    pip install holistictraceanalysis 'pandas<3' psutil
    python3 tools/hta_side_by_side.py --traces DIR --cli build/app/cli/streamlab-cli --out docs/evidence/hta-side-by-side.md

--append adds the rows of DIR's traces to the table already in --out (traces taken later).

The traces come from scripts/gpu_record_examples.sh (kineto/*.json) or any
`STREAMLAB_KINETO_OUT=t.json python3 examples/pytorch/NAME.py` run.
"""
import argparse
import logging
import os
import shutil
import subprocess
import tempfile
import time
import warnings


def hta_view(path):
    """HTA's idle breakdown per stream and critical-path summary, and the seconds it took."""
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    from hta.trace_analysis import TraceAnalysis

    folder = tempfile.mkdtemp()
    shutil.copy(path, folder)
    start = time.perf_counter()
    try:
        analysis = TraceAnalysis(trace_dir=folder)
        idle = analysis.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=False)
        idle = idle[0] if isinstance(idle, tuple) else idle
        parts = []
        for stream, rows in idle.groupby("stream"):
            total = rows["idle_time"].sum()
            split = ", ".join(f"{r.idle_category} {r.idle_time / 1000:.2f} ms" for r in rows.itertuples() if r.idle_time > 0)
            parts.append(f"stream {stream}: {split or 'none'}" if total > 0 else f"stream {stream}: 0")
        idle_text = "; ".join(parts)
        try:
            graph, ok = analysis.critical_path_analysis(rank=0, annotation="", instance_id=None)
            summary = graph.summary() if ok else None
            if summary is not None:
                top = summary.sort_values(ascending=False)
                cp_text = ", ".join(f"{name or 'unlabelled'} {share:.0f} %" for name, share in top.items() if share >= 1)
            else:
                cp_text = "failed"
        except Exception as error:  # HTA's critical path raises on some traces
            cp_text = f"error: {type(error).__name__}"
    except Exception as error:
        idle_text, cp_text = f"error: {type(error).__name__}: {str(error)[:80]}", "-"
    seconds = time.perf_counter() - start
    shutil.rmtree(folder, ignore_errors=True)
    return idle_text, cp_text, seconds


def streamlab_view(cli, path):
    """The warnings, then the notes that say why, of `streamlab-cli explain`, and its seconds."""
    start = time.perf_counter()
    result = subprocess.run([cli, "explain", path], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = result.stdout.splitlines() or result.stderr.splitlines()
    warnings_ = [l for l in lines if l.startswith("[warning]")]
    notes = [l for l in lines if l.startswith("[note]") and "kept the host busy" not in l]
    # A GPU-idle finding that says where the host was explains most of the run: it goes first.
    notes.sort(key=lambda l: "Where the host was in these gaps" not in l)
    summary = [l for l in lines if l.startswith("GPU time") or l.startswith("This run has")]
    chosen = (warnings_ + notes)[:3] + summary[:1]

    def short(line):
        line = line.split(" (Inferred, not recorded")[0] + (" *(inferred)*" if "(Inferred" in line else "")
        # Where the host was, in a GPU-idle finding, is the part that says what to change.
        head, places, tail = line.partition(" Where the host was in these gaps: ")
        if places:
            head = head if len(head) <= 160 else head[:157] + "..."
            tail = tail if len(tail) <= 200 else tail[:197] + "..."
            return head + places + tail
        return line if len(line) <= 260 else line[:257] + "..."

    return "<br>".join(short(l).replace("|", "\\|") for l in chosen), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", required=True, help="folder of Kineto traces (*.json)")
    parser.add_argument("--cli", required=True, help="path of streamlab-cli")
    parser.add_argument("--out", required=True, help="Markdown file to write")
    parser.add_argument("--append", action="store_true", help="add the rows to the table already in --out")
    args = parser.parse_args()
    rows = []
    for name in sorted(os.listdir(args.traces)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(args.traces, name)
        idle, cp, hta_s = hta_view(path)
        ours, ours_s = streamlab_view(args.cli, path)
        rows.append((name[:-5], idle, cp, ours, hta_s, ours_s, os.path.getsize(path)))
        print(f"{name}: HTA {hta_s:.2f} s, StreamLab {ours_s:.2f} s", flush=True)
    if args.append:
        with open(args.out, "a") as out:
            for name, idle, cp, ours, hta_s, ours_s, size in rows:
                out.write(f"| {name} ({size / 1e6:.1f} MB) | {idle} | {cp} | {ours} | {hta_s:.2f} | {ours_s:.2f} |\n")
        return
    with open(args.out, "w") as out:
        out.write("# HTA and StreamLab on the same torch.profiler traces\n\n")
        out.write("Generated by `tools/hta_side_by_side.py` (see its header for the command) on "
                  "torch.profiler traces of `examples/pytorch/` taken on an H100 (torch 2.11, CUDA 13.0). "
                  "HTA: `get_idle_time_breakdown` per stream and `critical_path_analysis(...).summary()`. "
                  "StreamLab: the warnings and notes of `streamlab-cli explain` on the same file "
                  "(*(inferred)* marks a finding that rests on a link Kineto does not record). "
                  "Times include loading the file.\n\n")
        out.write("| example | HTA idle time per stream | HTA critical path | StreamLab findings | HTA s | StreamLab s |\n")
        out.write("| --- | --- | --- | --- | ---: | ---: |\n")
        for name, idle, cp, ours, hta_s, ours_s, size in rows:
            out.write(f"| {name} ({size / 1e6:.1f} MB) | {idle} | {cp} | {ours} | {hta_s:.2f} | {ours_s:.2f} |\n")


if __name__ == "__main__":
    main()
