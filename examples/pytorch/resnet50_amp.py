"""A real model: torchvision ResNet-50 training steps with AMP (bf16 autocast) on random
data (nothing downloaded). STREAMLAB_STEPS sets the number of measured steps (default 6);
the step times are printed so the cost of recording can be measured.

STREAMLAB_CAPTURE_STEPS=A:B wraps measured steps A..B-1 in torch.cuda.profiler.start() and
stop(), the range `streamlab-cli record --capture-range cudaProfilerApi` records; the steps
inside and outside it are then compared within this one process. STREAMLAB_AB_STEPS=N instead
runs N pairs of steps, one of each pair inside a range (order swapped every pair; for a
recorder with STREAMLAB_RECORD_RANGE_REPEAT=1, or torch.profiler when STREAMLAB_KINETO_OUT is
set), and prints the median of the pairs' step ratios: steps 30 ms apart see the same host."""
import os
import time

import torch
import torchvision

import sys

from streamlab_example import alternate, maybe_profiled, paired_median, require_gpu

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


def timed_step():
    """One step: (wall time to its end, the host's time to issue it, GPU time between events)."""
    t0 = time.perf_counter()
    gpu_begin, gpu_end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    gpu_begin.record()
    with torch.cuda.nvtx.range("train_step"):
        step()
    gpu_end.record()
    # The host's time to issue the step: when it nears the step time, the host, not the
    # GPU, sets the pace, and any cost per call (a profiler's, say) shows in full.
    dispatch = time.perf_counter() - t0
    torch.cuda.synchronize()
    return time.perf_counter() - t0, dispatch, gpu_begin.elapsed_time(gpu_end) / 1e3


for _ in range(3):  # warm-up: cuDNN/cuBLAS choices, allocator growth
    step()
torch.cuda.synchronize()
pairs = int(os.environ.get("STREAMLAB_AB_STEPS", "0"))
if pairs:
    inside, outside = alternate(pairs, timed_step)
    _, ratio = paired_median([t[0] for t in inside], [t[0] for t in outside])
    print(f"step pairs: {pairs} pairs, median step ratio inside/outside {ratio:.3f}; medians inside/outside: "
          f"step {median([t[0] for t in inside]) * 1e3:.2f}/{median([t[0] for t in outside]) * 1e3:.2f} ms, "
          f"host dispatch {median([t[1] for t in inside]) * 1e3:.2f}/{median([t[1] for t in outside]) * 1e3:.2f} ms, "
          f"GPU {median([t[2] for t in inside]) * 1e3:.2f}/{median([t[2] for t in outside]) * 1e3:.2f} ms")
    sys.exit(0)
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
        wall, issue, gpu = timed_step()
        times.append(wall)
        dispatch.append(issue)
        (inside if first <= i < last else outside).append(times[-1])
        split[first <= i < last][0].append(dispatch[-1])
        split[first <= i < last][1].append(gpu)
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
