# Shared by the what-if pairs' PyTorch programs: the model, its data, and the "fixed" switch.
# Each program runs unchanged, or with one fix made by hand when "fixed" is on its command line.
import contextlib
import sys

import torch

FIXED = "fixed" in sys.argv[1:]
STEPS = 40


def mlp(width=2048, depth=3):
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).cuda()


def train_step(model, opt, x, y):
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


@contextlib.contextmanager
def step_range():
    """Marks one step with an NVTX range named "step", so before and after are split alike."""
    torch.cuda.nvtx.range_push("step")
    try:
        yield
    finally:
        torch.cuda.nvtx.range_pop()
