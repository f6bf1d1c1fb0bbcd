# A step of many small elementwise ops: each launch costs the host more than the kernel costs
# the GPU. Fixed: the step is captured once into a CUDA graph and replayed (torch.cuda.graph).
# It prints its own steady step time ("step_us"): under the recorder a graph launch costs the
# host about 1.4 us a node more than it does alone, so the fixed run is also timed unrecorded.
import statistics
import time

import torch

from common import FIXED, STEPS, step_range

state = torch.randn(4096, device="cuda")
out = torch.empty_like(state)


def step_fn():
    x = state
    for _ in range(120):
        x = x * 1.0001 + 0.0001
    out.copy_(x)


if FIXED:
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        step_fn()  # warm-up before capture
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step_fn()
torch.cuda.synchronize()
block_began, per_step = time.perf_counter(), []
for step in range(STEPS * 3):
    with step_range():
        if FIXED:
            graph.replay()
        else:
            step_fn()
    if step % 20 == 19:
        torch.cuda.synchronize()
        now = time.perf_counter()
        per_step.append((now - block_began) / 20)
        block_began = now
print(out.sum().item())
print("step_us", round(statistics.median(per_step[1:]) * 1e6, 1))
