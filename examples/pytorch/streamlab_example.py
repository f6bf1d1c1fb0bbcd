"""Shared helpers for the course's PyTorch experiments (examples/pytorch/*.py).

Each example is an ordinary PyTorch program. Run it plainly, or under
`streamlab-cli record -- python3 examples/pytorch/NAME.py` to explain it, or with
STREAMLAB_KINETO_OUT=trace.json to write a torch.profiler (Kineto) trace of the same run,
which `streamlab-cli explain trace.json` also reads.
"""
import contextlib
import os
import sys
import time

import torch


def require_gpu():
    if not torch.cuda.is_available():
        print("this example needs a CUDA GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(3)


_CYCLES_PER_MS = None


def spin(ms, stream=None):
    """A kernel that keeps one SM busy for about `ms` milliseconds (torch.cuda._sleep),
    calibrated once against CUDA events so the timeline reads in round numbers."""
    global _CYCLES_PER_MS
    if _CYCLES_PER_MS is None:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1000)  # load the kernel first
        start.record()
        torch.cuda._sleep(2_000_000)
        end.record()
        end.synchronize()
        _CYCLES_PER_MS = 2_000_000 / start.elapsed_time(end)
    with torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext():
        torch.cuda._sleep(int(ms * _CYCLES_PER_MS))


@contextlib.contextmanager
def maybe_profiled():
    """torch.profiler around the body when STREAMLAB_KINETO_OUT names a file, with the
    cuda_sync events (stream waits, syncs) that StreamLab's importer uses; with
    STREAMLAB_KINETO_STACK=1 also the Python call stack (with_stack=True), from which
    `explain` names the line of the program that made each blocking call.

    Without STREAMLAB_KINETO_OUT: STREAMLAB_PROFILER_RANGE=1 wraps the body in
    torch.cuda.profiler.profile() (cudaProfilerStart/Stop), and STREAMLAB_EMIT_NVTX=1 in
    torch.autograd.profiler.emit_nvtx(), which makes every PyTorch op an NVTX range."""
    out = os.environ.get("STREAMLAB_KINETO_OUT")
    if not out:
        with contextlib.ExitStack() as stack:
            if os.environ.get("STREAMLAB_PROFILER_RANGE") == "1":
                # The range `streamlab-cli record --capture-range cudaProfilerApi` records.
                stack.enter_context(torch.cuda.profiler.profile())
            if os.environ.get("STREAMLAB_EMIT_NVTX") == "1":
                # Every PyTorch op and record_function as an NVTX range, which a recording keeps.
                stack.enter_context(torch.autograd.profiler.emit_nvtx())
            yield
        return
    from torch.profiler import ProfilerActivity, profile
    config = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    with_stack = os.environ.get("STREAMLAB_KINETO_STACK") == "1"
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], experimental_config=config,
                 with_stack=with_stack) as prof:
        yield
    prof.export_chrome_trace(out)


@contextlib.contextmanager
def recorded_part():
    """The recorded half of a paired measurement (bench/record_overhead.sh): a
    torch.cuda.profiler.start()/stop() range, which `streamlab-cli record --capture-range
    cudaProfilerApi` records; or, when STREAMLAB_KINETO_OUT is set, a torch.profiler session
    (CUDA activity only with STREAMLAB_KINETO_CUDA_ONLY=1), whose trace is not written."""
    if not os.environ.get("STREAMLAB_KINETO_OUT"):
        torch.cuda.profiler.start()
        try:
            yield
        finally:
            torch.cuda.profiler.stop()
        return
    from torch.profiler import ProfilerActivity, profile
    cuda_only = os.environ.get("STREAMLAB_KINETO_CUDA_ONLY") == "1"
    activities = [ProfilerActivity.CUDA] if cuda_only else [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=activities):
        yield


def alternate(pairs, measure):
    """Calls `measure` 2 * pairs times, every other call inside recorded_part(), the order
    swapped every pair so that a steady drift of the host's speed cancels; returns the
    results as (inside, outside), pair by pair."""
    inside, outside = [], []
    for i in range(pairs):
        for recorded in ((False, True) if i % 2 == 0 else (True, False)):
            if recorded:
                with recorded_part():
                    inside.append(measure())
            else:
                outside.append(measure())
    return inside, outside


def paired_median(inside, outside):
    """Median of inside[i] - outside[i] and of inside[i] / outside[i] over the pairs."""
    def median(values):
        return sorted(values)[len(values) // 2]
    return (median([a - b for a, b in zip(inside, outside)]), median([a / b for a, b in zip(inside, outside)]))


def step_range():
    """A range named "step" around one step: an NVTX range, which a recording keeps, or under
    torch.profiler (STREAMLAB_KINETO_OUT) a record_function, which its trace keeps. One, not both:
    emit_nvtx() would make the record_function an NVTX range too."""
    if os.environ.get("STREAMLAB_KINETO_OUT"):
        return torch.profiler.record_function("step")
    return torch.cuda.nvtx.range("step")


def studied_steps(step, warm_up_steps=2):
    """Runs step() warm_up_steps times (kernels loaded, the allocator's pool grown), then
    STREAMLAB_STEPS times (default 3) inside maybe_profiled(), each step inside step_range(), so
    `streamlab-cli compare before.json after.json --per step` compares two runs step by step.
    Returns (seconds a step, the host's seconds a step to issue them, the last step's result)."""
    for _ in range(warm_up_steps):
        step()
    torch.cuda.synchronize()
    steps = int(os.environ.get("STREAMLAB_STEPS", "3"))
    begin = time.perf_counter()
    with maybe_profiled():
        for _ in range(steps):
            with step_range():
                result = step()
        host = time.perf_counter() - begin
        torch.cuda.synchronize()
    return (time.perf_counter() - begin) / steps, host / steps, result


def warm_up():
    """Create the CUDA context and load the sleep kernel before the part that is studied."""
    require_gpu()
    spin(0.01)
    torch.cuda.synchronize()
