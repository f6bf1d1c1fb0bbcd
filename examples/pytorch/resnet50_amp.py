"""A real model: torchvision ResNet-50 training steps with AMP (bf16 autocast) on random
data (nothing downloaded). STREAMLAB_STEPS sets the number of measured steps (default 6);
the step times are printed so the cost of recording can be measured.

STREAMLAB_CAPTURE_STEPS=A:B wraps measured steps A..B-1 in torch.cuda.profiler.start() and
stop(), the range `streamlab-cli record --capture-range cudaProfilerApi` records; the steps
inside and outside it are then compared within this one process."""
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


def median(values):
    return sorted(values)[len(values) // 2]


for _ in range(3):  # warm-up: cuDNN/cuBLAS choices, allocator growth
    step()
torch.cuda.synchronize()
capture = os.environ.get("STREAMLAB_CAPTURE_STEPS")
first, last = (int(x) for x in capture.split(":")) if capture else (-1, -1)
times, dispatch, inside, outside = [], [], [], []
# Per step, inside or outside the capture range: the host's time to issue it and the GPU's
# time from its first to its last kernel (CUDA events), to tell which side a cost is on.
split = {True: ([], []), False: ([], [])}
with maybe_profiled():
    for i in range(steps):
        if i == first:
            torch.cuda.profiler.start()
        if i == last:
            torch.cuda.profiler.stop()  # the GPU is idle here: the last step synchronized
        t0 = time.perf_counter()
        gpu_begin, gpu_end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        gpu_begin.record()
        with torch.cuda.nvtx.range("train_step"):
            step()
        gpu_end.record()
        # The host's time to issue the step: when it nears the step time, the host, not the
        # GPU, sets the pace, and any cost per call (a profiler's, say) shows in full.
        dispatch.append(time.perf_counter() - t0)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        (inside if first <= i < last else outside).append(times[-1])
        split[first <= i < last][0].append(dispatch[-1])
        split[first <= i < last][1].append(gpu_begin.elapsed_time(gpu_end) / 1e3)
if capture:
    mid_in, mid_out = sorted(inside)[len(inside) // 2], sorted(outside)[len(outside) // 2]
    print("inside the range (ms, in order):", " ".join(f"{t * 1e3:.1f}" for t in inside))
    print(f"capture range: steps {first}..{last - 1}, median inside {mid_in * 1e3:.2f} ms, "
          f"outside {mid_out * 1e3:.2f} ms, inside/outside {mid_in / mid_out:.3f}, "
          f"host dispatch {median(split[True][0]) * 1e3:.2f}/{median(split[False][0]) * 1e3:.2f} ms, "
          f"GPU {median(split[True][1]) * 1e3:.2f}/{median(split[False][1]) * 1e3:.2f} ms (inside/outside)")
times.sort()
dispatch.sort()
print("step times (ms, sorted):", " ".join(f"{t * 1e3:.2f}" for t in times))
print(f"resnet50 amp: {steps} steps, median step {times[len(times) // 2] * 1e3:.2f} ms, "
      f"median host dispatch {dispatch[len(dispatch) // 2] * 1e3:.2f} ms")
