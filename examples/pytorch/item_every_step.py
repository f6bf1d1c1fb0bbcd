"""A training loop that reads its loss every step with loss.item(). A step's kernels take
longer to run (~4 ms on an H100) than to launch, so the host runs ahead; .item() copies the
loss into pageable host memory and waits for it, the GPU drains, and then Python does ~1 ms
of bookkeeping before it launches the next step: the GPU sits idle all that time."""
import os
import time

import torch

from streamlab_example import maybe_profiled, warm_up

warm_up()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(4096, 2048, device="cuda")
y = torch.randn(4096, 2048, device="cuda")


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()  # a D2H copy of the loss and a wait for it: a host sync


step()  # the first step allocates and loads every kernel: not part of the study
torch.cuda.synchronize()
losses = []
with maybe_profiled():
    for _ in range(int(os.environ.get("STREAMLAB_STEPS", "20"))):
        losses.append(step())
        until = time.perf_counter() + 1e-3  # the host's own bookkeeping (logging, metrics)
        while time.perf_counter() < until:
            pass
    torch.cuda.synchronize()
print("item every step done", round(losses[-1], 4))
