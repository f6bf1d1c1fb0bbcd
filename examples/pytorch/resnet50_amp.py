"""A real model: torchvision ResNet-50 training steps with AMP (bf16 autocast) on random
data (nothing downloaded). STREAMLAB_STEPS sets the number of measured steps (default 6);
the step times are printed so the cost of recording can be measured."""
import os
import time

import torch
import torchvision

from streamlab_example import maybe_profiled, require_gpu

require_gpu()
steps = int(os.environ.get("STREAMLAB_STEPS", "6"))
batch = int(os.environ.get("STREAMLAB_BATCH", "64"))
model = torchvision.models.resnet50(weights=None).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
images = torch.randn(batch, 3, 224, 224, device="cuda")
labels = torch.randint(0, 1000, (batch,), device="cuda")


def step():
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()


for _ in range(3):  # warm-up: cuDNN/cuBLAS choices, allocator growth
    step()
torch.cuda.synchronize()
times = []
with maybe_profiled():
    for _ in range(steps):
        t0 = time.perf_counter()
        with torch.cuda.nvtx.range("train_step"):
            step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
times.sort()
print("step times (ms, sorted):", " ".join(f"{t * 1e3:.2f}" for t in times))
print(f"resnet50 amp: {steps} steps, median step {times[len(times) // 2] * 1e3:.2f} ms")
