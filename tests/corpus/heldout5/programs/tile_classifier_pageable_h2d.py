"""Training a small tile classifier (four strided convolutions with batch norm and ReLU, global
average pooling, a linear head over 10 classes; about 0.4 M parameters; bf16 autocast, SGD with
momentum) on large float32 image tiles: 32 tiles of 3 x 512 x 512 a batch, 100.7 MB. The data set
(two batches' worth, 201 MB, made once with torch.rand, already normalized) lives in ordinary
pageable host memory -- never pinned -- and each step slices the next batch (a view, no host copy)
and moves it with .to("cuda", non_blocking=True) at line 41, believing the copy to be
asynchronous. From pageable memory it is not: CUDA stages the 100 MB through its own pinned
bounce buffer, and the host stays inside the copy call until the data are staged (several
gigabytes a second, ~15-20 ms). The model's own GPU work is small (~50 GFLOP forward and backward,
~1-2 ms). The loss is read with .item() every step. STEPS steps (default 30); prints the median
step time."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, n_batches = 32, 2
tiles = torch.rand(batch_size * n_batches, 3, 512, 512)          # 201 MB, pageable host memory
labels = torch.randint(0, 10, (batch_size * n_batches,))
model = nn.Sequential(
    nn.Conv2d(3, 32, 4, stride=4), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
    nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(inplace=True),
    nn.Conv2d(128, 256, 3, stride=2, padding=1), nn.BatchNorm2d(256), nn.ReLU(inplace=True),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10)).cuda()
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    i = (step % n_batches) * batch_size
    x_host = tiles[i:i + batch_size]                                # a view: no host copy
    y_host = labels[i:i + batch_size]
    x = x_host.to("cuda", non_blocking=True)   # 100 MB from PAGEABLE memory: the host waits here
    y = y_host.to("cuda", non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()
timer.tick()
timer.report("tile_classifier_pageable_h2d")
print(f"mean loss {running / steps:.3f}")
