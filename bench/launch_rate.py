"""The host's cost per CUDA call, seen from PyTorch: 20 000 tiny in-place ops on a 256-element
tensor (each kernel takes ~2 us on the GPU, less than the host needs to issue it), timed on
the host. Under `streamlab-cli record` the difference to a plain run is what recording adds
to every launch. Prints the median of five batches in microseconds per op."""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "pytorch"))
from streamlab_example import maybe_profiled  # noqa: E402  (torch.profiler when STREAMLAB_KINETO_OUT is set)

x = torch.ones(256, device="cuda")
for _ in range(1000):
    x.mul_(1.0001)
torch.cuda.synchronize()
batches = []
with maybe_profiled():
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(4000):
            x.mul_(1.0001)
        torch.cuda.synchronize()
        batches.append((time.perf_counter() - t0) / 4000)
batches.sort()
print(f"launch rate: {batches[2] * 1e6:.2f} us per op")
