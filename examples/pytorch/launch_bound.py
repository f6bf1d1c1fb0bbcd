"""Many tiny kernels launched one by one: the GPU finishes each before the host has launched
the next, so it idles most of the time (launch-bound)."""
import torch

from streamlab_example import maybe_profiled, warm_up

warm_up()
x = torch.ones(256, device="cuda")
torch.cuda.synchronize()
with maybe_profiled():
    for _ in range(200):
        x.mul_(1.0001)
    torch.cuda.synchronize()
print("launch-bound done", float(x[0]))
