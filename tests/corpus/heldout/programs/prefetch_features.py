"""Training a classifier head on precomputed features (8192 x 2048 fp32 = 64 MB a batch) with the
classic CUDA prefetcher (the apex / timm "data_prefetcher" pattern): while the GPU trains on batch
i, batch i+1 is copied from pinned host memory on a side stream with .cuda(non_blocking=True);
next() hands the batch over to the default stream and marks it with record_stream so its memory is
not reused while the default stream still reads it. Each step first records the batch's mean (a
data-sanity statistic, checked against the host at the end), then a 3-layer MLP forward under
torch.autocast(bfloat16), backward, fused AdamW; the loss is read with .item() every 10 steps.

PREFETCH_WAIT=1 (default): next() makes the default stream wait for the copy stream
(torch.cuda.current_stream().wait_stream(self.stream)) -- correct.
PREFETCH_WAIT=0: that wait is missing -- a real race: the default stream may read a batch before
its copy has landed (the copies are slower than the compute, so it does). The program counts the
batch means that differ from the host's and prints "N of 40 results wrong".

STEPS steps (default 40). The loop syncs only every 10 steps, so the printed median is the wall
time between two torch.cuda.synchronize() calls divided by the steps between them."""
import os
import time

import torch
from torch import nn

steps = int(os.environ.get("STEPS", "40"))
wait = os.environ.get("PREFETCH_WAIT", "1") != "0"
warm = 5
batch, features, classes = 8192, 2048, 100
torch.manual_seed(0)
base = torch.randn(batch, features)
# The feature file, already in pinned memory: batch k holds base + (k + 1), so its mean is known.
pinned = torch.empty(steps, batch, features, pin_memory=True)
for k in range(steps):
    torch.add(base, k + 1, out=pinned[k])
labels = torch.randint(0, classes, (steps, batch)).pin_memory()
expected = base.double().mean().item() + torch.arange(1, steps + 1, dtype=torch.float64)


class Prefetcher:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.k = 0
        self.preload()

    def preload(self):
        if self.k == steps:
            self.next_x = self.next_y = None
            return
        with torch.cuda.stream(self.stream):
            self.next_x = pinned[self.k].cuda(non_blocking=True)   # the copy (writes next_x)
            self.next_y = labels[self.k].cuda(non_blocking=True)
        self.k += 1

    def next(self):
        if wait:
            torch.cuda.current_stream().wait_stream(self.stream)  # the batch's copy first
        x, y = self.next_x, self.next_y
        x.record_stream(torch.cuda.current_stream())
        y.record_stream(torch.cuda.current_stream())
        self.preload()
        return x, y


model = nn.Sequential(nn.Linear(features, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(),
                      nn.Linear(1024, classes)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
means = torch.zeros(steps, device="cuda")
torch.cuda.synchronize()
prefetcher = Prefetcher()
for step in range(steps):
    if step == warm:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
    x, y = prefetcher.next()
    means[step] = x.mean()                                          # the first read of the batch
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if step % 10 == 9:
        print(f"step {step} loss {loss.item():.3f}", flush=True)   # the only sync in the loop
torch.cuda.synchronize()
elapsed = time.perf_counter() - t0
wrong = int(((means.cpu().double() - expected).abs() > 1e-2).sum())
print(f"prefetch_features ({'with' if wait else 'WITHOUT'} wait_stream): {steps - warm} steps timed; "
      f"median step {elapsed / (steps - warm) * 1e3:.3f} ms (window between two synchronize() calls / "
      f"{steps - warm} steps)")
print(f"{wrong} of {steps} results wrong")
