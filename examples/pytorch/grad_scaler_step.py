"""What GradScaler.step costs: before it lets the optimizer step, it reads back whether any
gradient overflowed (an .item() inside torch, in GradScaler._maybe_opt_step), a host sync every
step. An optimizer that takes that check on the GPU does not need the read: Adam, AdamW and SGD
built with fused=True (--fused) declare it (_step_supports_amp_scaling), and GradScaler hands
them the overflow flag as a tensor instead.

A 2 ms spin kernel stands for a heavy backward, so the read visibly waits for the GPU to
drain. STREAMLAB_STEPS sets the number of studied steps (default 3)."""
import argparse
import os
import time

import torch

from streamlab_example import maybe_profiled, spin, warm_up

parser = argparse.ArgumentParser()
parser.add_argument("--fused", action="store_true", help="AdamW(fused=True): no read in scaler.step")
args = parser.parse_args()

warm_up()
torch.manual_seed(0)
model = torch.nn.Linear(1024, 1024).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=args.fused)
scaler = torch.amp.GradScaler("cuda")
x = torch.randn(256, 1024, device="cuda")


def step():
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    spin(2)  # the GPU time of a heavy backward
    scaler.step(optimizer)  # reads found_inf back (waits for the spin) unless the optimizer is fused
    scaler.update()


for _ in range(2):  # warm-up: kernels loaded, the optimizer's state made
    step()
torch.cuda.synchronize()
steps = int(os.environ.get("STREAMLAB_STEPS", "3"))
begin = time.perf_counter()
with maybe_profiled():
    for _ in range(steps):
        host = time.perf_counter()
        step()
    host = time.perf_counter() - host  # the last step's time on the host: short when nothing waited
    torch.cuda.synchronize()
print(f"grad scaler step done: fused={args.fused}, {(time.perf_counter() - begin) / steps * 1e3:.2f} ms a step, "
      f"the last step's host time {host * 1e3:.2f} ms")
