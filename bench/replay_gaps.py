#!/usr/bin/env python3
"""Probe for the replay (engine/whatif/): how far apart a GPU runs back-to-back kernels of a
recorded program, where no timing events sit between them. Run under the recorder on the GPU
machine, then read the figures with `streamlab-cli replay`:

  streamlab-cli record --out gaps.json -- python3 bench/replay_gaps.py
  streamlab-cli replay gaps.json --json   # same_stream_gap_ns, graph_node_gap_ns

Part 1 queues 300 elementwise kernels on 16M floats (about 40 us each, longer than a launch, so
they queue) of varied kinds: the stream gap. Part 2 captures 200 small varied kernels into a CUDA
graph and replays it 20 times: the graph node gap. The figures go into the shipped profiles'
replay_stream_gap_ns and replay_graph_node_gap_ns (docs/evidence/whatif.md).
"""
import torch

ops = [torch.sin, torch.cos, torch.exp, torch.tanh, lambda t: t * 1.0001, lambda t: t + 0.0001]

big = torch.rand(16 << 20, device="cuda")
torch.cuda.synchronize()
for k in range(300):
    big = ops[k % len(ops)](big)
torch.cuda.synchronize()

small = torch.rand(4096, device="cuda")
out = torch.empty_like(small)


def chain():
    x = small
    for k in range(200):
        x = ops[k % len(ops)](x)
    out.copy_(x)


side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    chain()
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    chain()
for _ in range(20):
    graph.replay()
torch.cuda.synchronize()
print(float(out.sum()), float(big.sum()))
