"""non_blocking=True from pageable memory still blocks the host (the driver stages it);
from pinned memory the copy is truly asynchronous and overlaps a kernel on another stream."""
import torch

from streamlab_example import maybe_profiled, spin, warm_up

warm_up()
compute = torch.cuda.Stream()
copy = torch.cuda.Stream()
pageable = torch.randn(16 << 20)               # 64 MB
pinned = torch.randn(16 << 20).pin_memory()    # 64 MB, page-locked
dst = torch.empty(16 << 20, device="cuda")
torch.cuda.synchronize()
with maybe_profiled():
    spin(3, compute)
    with torch.cuda.stream(copy):
        dst.copy_(pageable, non_blocking=True)   # the host waits here anyway
    spin(3, compute)
    with torch.cuda.stream(copy):
        dst.copy_(pinned, non_blocking=True)     # returns at once, overlaps the spin
    torch.cuda.synchronize()
print("pageable vs pinned done")
