#!/usr/bin/env python3
"""Companion of bench/graph_node_gaps.py: many_small_ops' own fixed step (tests/whatif_pairs),
a 241-node graph of `x * 1.0001 + 0.0001` on 4096 floats, captured after a warm-up on a side
stream and replayed 120 times, a sync every 20, in variants that each take away one thing in
which it differs from graph_node_gaps.py:

  streamlab-cli record --out v.json -- python3 bench/graph_node_gaps_pair.py MODE
  MODE: rand or randn (the input), plus _nvtx (a "step" range around each replay) and/or
        _spaced (0.4 ms of host work after each replay)

On an H100 (2026-11-27) every variant ran its nodes 95 ns apart (median), like the pair, while
graph_node_gaps.py's muladd 4096 ran the same kernels 256 ns apart on the same machine start.
What is left between them: graph_node_gaps.py runs the chain eagerly on the default stream five
times before capturing it, and replays 20 times queued and 20 times with a sync after each.
"""

import sys
import time

import torch

mode = sys.argv[1]
state = (torch.randn if mode.startswith("randn") else torch.rand)(4096, device="cuda")
out = torch.empty_like(state)


def step_fn():
    x = state
    for _ in range(120):
        x = x * 1.0001 + 0.0001
    out.copy_(x)


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    step_fn()  # warm-up before capture
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    step_fn()
torch.cuda.synchronize()
for step in range(120):
    if "nvtx" in mode:
        torch.cuda.nvtx.range_push("step")
    graph.replay()
    if "nvtx" in mode:
        torch.cuda.nvtx.range_pop()
    if "spaced" in mode:
        began = time.perf_counter()
        while time.perf_counter() - began < 0.0004:
            pass
    if step % 20 == 19:
        torch.cuda.synchronize()
print(out.sum().item())
