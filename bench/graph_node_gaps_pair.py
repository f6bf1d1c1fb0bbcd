#!/usr/bin/env python3
"""Companion of bench/graph_node_gaps.py: many_small_ops' own fixed step (tests/whatif_pairs),
a 241-node graph of `x * 1.0001 + 0.0001` on 4096 floats, captured after a warm-up on a side
stream and replayed 120 times, a sync every 20, in variants that each take away one thing in
which it differs from graph_node_gaps.py:

  streamlab-cli record --out v.json -- python3 bench/graph_node_gaps_pair.py MODE
  MODE: rand or randn (the input), plus _nvtx (a "step" range around each replay) and/or
        _spaced (0.4 ms of host work after each replay), _eager (the chain run eagerly on the
        default stream 5 times, a sync after each, before the capture, as graph_node_gaps.py
        does) and/or _big (300 elementwise kernels on 16 M floats first, as replay_gaps.py does),
        _warm3 (three warm-up passes on the side stream, as torch.cuda.graphs' example does),
        _many[N][side|after] (N one-element kernels, 1200 unless given, on the default stream
        or a side one, before the capture or after it), _replayside (replays on a new stream),
        _inplace (100 launches of the chain's multiply on its input), _zeros (one small
        tensor of zeros), _alloc (a 64 MB tensor, no kernel), _sync (a device sync),
        _busy (one kernel spinning ~20 ms first),
        _idle (50 ms of host sleep before the capture).
  It prints "replay_us": the median GPU time of a replay, 20 queued replays timed by CUDA events
  (run it without the recorder too: the recorder's per-node cost is then out).

On an H100 (2026-11-27) the rand, randn, _nvtx and _spaced variants all ran their nodes 95 ns
apart (median), like the pair, while graph_node_gaps.py's muladd 4096 ran the same kernels 256 ns
apart on the same machine start. On a later H100 start, _eager and _big each turned the gap to
256 ns (two recordings each; rand alone 95 ns, replay_gaps.py 256 ns), and without the recorder
a replay took 244-245 us after rand alone and 287-288 us after _eager or _big (three processes
each): a graph captured after the process had run other GPU work ran its nodes about 170 ns
further apart, recorded or not. On two more H100 starts (15 and 16, three processes each):
_many (any count from 100, on either stream, before the capture or after it, with replays on
either stream) and _inplace gave the slow replay (299-300 us against 256 us on start 15; recorded
on start 16, 256 ns against 95 ns a node), while _warm3, _busy, _idle, _alloc, _sync, _zeros and
_many1 did not: small launches outside the graph, before its replays, turn the gap slow.
"""

import re
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


many = re.search(r"_many(\d*)(side|after)?", mode)  # many launches, little GPU time
tiny = torch.zeros(1, device="cuda") if many else None
many_count = int(many.group(1) or 1200) if many else 0
many_stream = torch.cuda.Stream() if many and many.group(2) == "side" else torch.cuda.current_stream()


def launch_many():
    with torch.cuda.stream(many_stream):
        for _ in range(many_count):
            tiny.add_(1)
    torch.cuda.synchronize()


if many and many.group(2) != "after":
    launch_many()
if "_inplace" in mode:  # launches of the chain's own kernel on its own input, no allocation
    for _ in range(100):
        state.mul_(1.0)
    torch.cuda.synchronize()
if "_zeros" in mode:  # one small tensor, one fill kernel
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
if "_alloc" in mode:  # one new 64 MB segment, no kernel
    reserved = torch.empty(16 << 20, device="cuda")
if "_sync" in mode:
    torch.cuda.synchronize()
if "busy" in mode:  # GPU time, few launches: one kernel spinning about 20 ms
    torch.cuda._sleep(40_000_000)
    torch.cuda.synchronize()
if "idle" in mode:  # time, no GPU work: 50 ms on the host
    time.sleep(0.05)
if "big" in mode:
    big = torch.rand(16 << 20, device="cuda")
    for _ in range(300):
        big = big * 1.0001
    torch.cuda.synchronize()
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3 if "warm3" in mode else 1):  # torch.cuda.graphs' documented example warms up 3 times
        step_fn()  # warm-up before capture
torch.cuda.current_stream().wait_stream(side)
if "eager" in mode:
    torch.cuda.synchronize()
    for _ in range(5):
        step_fn()
        torch.cuda.synchronize()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    step_fn()
torch.cuda.synchronize()
if many and many.group(2) == "after":
    launch_many()
replay_stream = torch.cuda.Stream() if "replayside" in mode else torch.cuda.current_stream()
timed = []
block_began, block_ended = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
with torch.cuda.stream(replay_stream):
    for step in range(120):
        if step % 20 == 0:
            block_began.record()
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
            block_ended.record()
            torch.cuda.synchronize()
            timed.append(block_began.elapsed_time(block_ended) * 1000 / 20)
print(out.sum().item())
print("replay_us", round(sorted(timed)[len(timed) // 2], 1))
