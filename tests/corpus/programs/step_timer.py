"""Shared by the corpus's training loops: each step's wall time (perf_counter from one step's
start to the next's), printed as the program's own median, and an optional torch.profiler run
(KINETO_OUT=path: ProfilerStep ranges, with_stack) so the same loop is also an imported trace;
SYNC_DEBUG=1 turns on PyTorch's sync debug mode."""
import contextlib
import os
import statistics
import time

import torch

# SYNC_DEBUG=1: PyTorch's own check, torch.cuda.set_sync_debug_mode("warn"), which warns at each
# operation that synchronizes with the GPU (docs/explain-programs.md compares it with the verdict).
if os.environ.get("SYNC_DEBUG"):
    torch.cuda.set_sync_debug_mode("warn")


class StepTimer:
    def __init__(self, skip=5):
        self.skip, self.starts = skip, []

    def tick(self):
        self.starts.append(time.perf_counter())

    def report(self, name):
        times = [b - a for a, b in zip(self.starts, self.starts[1:])]
        steady = times[self.skip:] or times
        print(f"{name}: {len(times)} steps timed; median step {statistics.median(steady) * 1e3:.3f} ms "
              f"(steps {self.skip}..{len(times) - 1})", flush=True)


def maybe_profiled(steps):
    """torch.profiler over the whole loop when KINETO_OUT is set: one ProfilerStep range per step."""
    out = os.environ.get("KINETO_OUT")
    if not out:
        return contextlib.nullcontext(None)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    prof = torch.profiler.profile(activities=acts, with_stack=True,
                                  schedule=torch.profiler.schedule(wait=0, warmup=1, active=steps),
                                  on_trace_ready=lambda p: p.export_chrome_trace(out))
    return prof
