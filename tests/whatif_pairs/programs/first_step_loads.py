# A loop whose first step is the first launch of each of its kernels. Under lazy loading (CUDA's
# default since 12.2) a kernel's first launch loads its module, so step 1 holds every load.
# Fixed: each op is run once before the loop (a warm-up launch), so the loads happen there. The
# ops write into buffers made before the loop: no step allocates, only the loads differ.
import torch

from common import FIXED, STEPS, step_range

OPS = [torch.sin, torch.cos, torch.exp, torch.tanh, torch.sigmoid, torch.sqrt, torch.log1p, torch.erf]
x = torch.rand(1 << 20, device="cuda")
outs = [torch.empty_like(x) for _ in OPS]


def step_fn():
    for op, out in zip(OPS, outs):
        op(x, out=out)


if FIXED:
    step_fn()  # the warm-up launches
torch.cuda.synchronize()
for step in range(STEPS):
    with step_range():
        step_fn()
        torch.cuda.synchronize()
print(float(sum(o.sum() for o in outs)))
