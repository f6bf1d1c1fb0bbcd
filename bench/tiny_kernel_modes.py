#!/usr/bin/env python3
"""The many_small_ops pair's chain (tests/whatif_pairs: 240 elementwise kernels on 4096 floats and
a copy) run three ways in one process, each inside an NVTX range of its name, to tell where a
tiny kernel's time goes when a fix turns eager launches into a CUDA graph:

  graph     the chain captured once (after one side-stream warm-up, as the pair's fixed program
            does) and replayed 100 times, 20 at a time queued behind a 20 ms spin
  queued    the chain launched eagerly behind a 20 ms spin, 5 times: its kernels run back to back
            from the stream, as a graph's do, but each from its own launch
  isolated  the chain launched eagerly with nothing queued, 20 times: the host is slower than the
            GPU, so each kernel starts on an idle GPU (the pair's "before" program)
  graph2    the graph again, after those eager launches

  python3 bench/tiny_kernel_modes.py [SIZE] [mm]     # unrecorded: CUDA events time graph, queued
  streamlab-cli record --out r.json -- python3 bench/tiny_kernel_modes.py [SIZE] [mm]   # every kernel's time

SIZE: the floats each kernel works on (4096, as the pair, unless given); "mm": the chain's
multiply is a SIZE x SIZE matrix product instead (an add after each, as before), for kernels of
another kind.

Unrecorded it prints, per mode timed by events, the GPU time per node ("graph_ns_per_node",
"queued_ns_per_kernel", "graph2_ns_per_node"), dividing by 241 ops a chain; a product that cuBLAS runs as more than
one kernel makes more (256 mm: 361, as its recording shows), and the figure is scaled by
241/361. A recording gives each kernel's duration and the gap before it
(bench/tiny_kernel_modes_read.py reads them per range). Figures from an H100:
docs/evidence/whatif.md ("The recorder's GPU time on each kernel").
"""

import sys

import torch

SIZE = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
MM = "mm" in sys.argv[2:]
state = torch.randn((SIZE, SIZE) if MM else SIZE, device="cuda") / (SIZE if MM else 1)
weight = torch.eye(SIZE, device="cuda") if MM else None
out = torch.empty_like(state)
CHAIN = 120  # multiply-add pairs: 240 kernels, and the copy


def step_fn():
    x = state
    for _ in range(CHAIN):
        x = (x @ weight if MM else x * 1.0001) + 0.0001
    out.copy_(x)


def spin():  # about 20 ms of one kernel, so what follows queues up behind it
    torch.cuda._sleep(40_000_000)


def timed_behind_spin(work, repeats):
    """GPU time of `repeats` runs of `work` queued behind a spin, from CUDA events."""
    began, ended = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spin()
    began.record()
    for _ in range(repeats):
        work()
    ended.record()
    torch.cuda.synchronize()
    return began.elapsed_time(ended) * 1e6 / repeats  # ns per run


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    step_fn()  # warm-up before capture
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    step_fn()
torch.cuda.synchronize()
nodes = 2 * CHAIN + 1

results = {}
torch.cuda.nvtx.range_push("graph")
results["graph_ns_per_node"] = min(timed_behind_spin(graph.replay, 20) for _ in range(5)) / nodes
torch.cuda.nvtx.range_pop()

torch.cuda.nvtx.range_push("queued")
results["queued_ns_per_kernel"] = min(timed_behind_spin(step_fn, 1) for _ in range(5)) / nodes
torch.cuda.nvtx.range_pop()

torch.cuda.nvtx.range_push("isolated")
for _ in range(20):
    step_fn()
    torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()

torch.cuda.nvtx.range_push("graph2")
results["graph2_ns_per_node"] = min(timed_behind_spin(graph.replay, 20) for _ in range(5)) / nodes
torch.cuda.nvtx.range_pop()

print(out.sum().item())
for key, value in results.items():
    print(key, round(value, 1))
