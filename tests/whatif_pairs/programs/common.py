# Shared by the what-if pairs' PyTorch programs: the model, its data, and the "fixed" switch.
# Each program runs unchanged, or with one fix made by hand when "fixed" is on its command line.
import contextlib
import os
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


def profiled():
    """torch.profiler over the loop when KINETO_OUT is set (the pair as an imported trace: one
    ProfilerStep range per prof.step()); else nothing, and the program runs as recorded."""
    out = os.environ.get("KINETO_OUT")
    if not out:
        return contextlib.nullcontext(None)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    return torch.profiler.profile(activities=acts, with_stack=True,
                                  schedule=torch.profiler.schedule(wait=0, warmup=1, active=STEPS),
                                  on_trace_ready=lambda p: p.export_chrome_trace(out))
