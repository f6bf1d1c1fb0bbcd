#!/usr/bin/env python3
"""Probe: how far apart a CUDA graph's back-to-back kernel nodes run, and how long its kernels
take inside the graph against launched one by one. Written to test the one what-if pair that
misses (tests/whatif_pairs, many_small_ops): is its node gap (65-95 ns) a property of its kernels?

  streamlab-cli record --out gaps.json -- python3 bench/graph_node_gaps.py MIX ELEMENTS
  MIX: six (sin, cos, exp, tanh, mul, add in turn) or muladd (x * a, then + b: many_small_ops' chain)

It runs a chain of 240 elementwise kernels on ELEMENTS floats eagerly (5 times, a sync after
each), captures it into a graph, replays it 20 times queued and 20 times with a sync after each.
On an H100 (2026-11-27) every variant, muladd on 4096 floats included, ran its nodes 256 ns apart
(median), while many_small_ops' graph of the same chain ran them 65-95 ns apart in the same
machine start: the gap differs between processes for a reason the trace does not show
(docs/evidence/whatif.md).
"""
import sys

import torch

mix, n = sys.argv[1], int(sys.argv[2])
six = [torch.sin, torch.cos, torch.exp, torch.tanh, lambda t: t * 1.0001, lambda t: t + 0.0001]
ops = {"six": six, "muladd": six[4:]}[mix]
small = torch.rand(n, device="cuda")
out = torch.empty_like(small)


def chain():
    x = small
    for k in range(240):
        x = ops[k % len(ops)](x)
    out.copy_(x)


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    chain()  # warm-up before capture
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
for _ in range(5):  # eagerly, each kernel launched alone
    chain()
    torch.cuda.synchronize()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    chain()
for _ in range(20):
    graph.replay()
torch.cuda.synchronize()
for _ in range(20):
    graph.replay()
    torch.cuda.synchronize()
print(float(out.sum()))
