"""The host's cost per CUDA call, seen from PyTorch: tiny in-place ops on a 256-element tensor
(each kernel takes ~2 us on the GPU, less than the host needs to issue it), timed on the host.

Batches run before, inside and after a torch.cuda.profiler.start()/stop() range, which
`streamlab-cli record --capture-range cudaProfilerApi` records (bench/record_overhead.sh,
RANGE set): inside minus outside is what recording adds to every op, measured in one process,
so the host's speed, which differs between processes by more than the cost itself, cancels.
Run plainly, the same program is the control (inside and outside should agree).
Prints the median batch of each part in microseconds per op.

STREAMLAB_AB_PAIRS=N instead alternates N pairs of short batches, one outside and one inside a
range each (order swapped every pair), for a recorder started with STREAMLAB_RECORD_RANGE_REPEAT=1
(every start/stop is a range), or inside torch.profiler (STREAMLAB_KINETO_OUT set): the median
of the pairs' differences. The host's speed on the GPU
machine drifts by 30 % within a second; batches 20 ms apart see the same host."""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "pytorch"))
from streamlab_example import alternate, maybe_profiled, paired_median  # noqa: E402  (see streamlab_example.py)

OPS_PER_BATCH = 2000
BATCHES = 7  # per part: before, inside, after

x = torch.ones(256, device="cuda")
for _ in range(1000):
    x.mul_(1.0001)
torch.cuda.synchronize()


def batch():
    t0 = time.perf_counter()
    for _ in range(OPS_PER_BATCH):
        x.mul_(1.0001)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / OPS_PER_BATCH * 1e6


def median(values):
    return sorted(values)[len(values) // 2]


pairs = int(os.environ.get("STREAMLAB_AB_PAIRS", "0"))
if pairs:
    OPS_PER_BATCH = 500
    inside, outside = alternate(pairs, batch)
    difference, _ = paired_median(inside, outside)
    print(f"launch rate pairs: {pairs} pairs of {OPS_PER_BATCH} ops, inside - outside {difference:+.2f} "
          f"us per op (median of the pairs; inside {median(inside):.2f}, outside {median(outside):.2f})")
    sys.exit(0)

with maybe_profiled():
    before = [batch() for _ in range(BATCHES)]
    torch.cuda.profiler.start()
    inside = [batch() for _ in range(BATCHES)]
    torch.cuda.profiler.stop()
    after = [batch() for _ in range(BATCHES)]
outside = median(before + after)
print(f"launch rate: {median(before + inside + after):.2f} us per op")
print(f"launch rate range: inside {median(inside):.2f} us per op, outside {outside:.2f} "
      f"(before {median(before):.2f}, after {median(after):.2f}), "
      f"inside - outside {median(inside) - outside:+.2f} us per op")
