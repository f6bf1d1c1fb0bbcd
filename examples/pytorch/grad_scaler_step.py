"""What GradScaler.step costs: before it lets the optimizer step, it reads back whether any
gradient overflowed (an .item() inside torch, in GradScaler._maybe_opt_step), a host sync every
step. An optimizer that takes that check on the GPU does not need the read: Adam, AdamW and SGD
built with fused=True (--fused) declare it (_step_supports_amp_scaling), and GradScaler hands
them the overflow flag as a tensor instead.

A 2 ms spin kernel stands for a heavy backward, so the read visibly waits for the GPU to
drain. STREAMLAB_STEPS sets the number of studied steps (default 3), each in a range "step":
`streamlab-cli compare plain.json fused.json --per step` compares the two per step."""
import argparse

import torch

from streamlab_example import spin, studied_steps, warm_up

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


seconds, host, _ = studied_steps(step)
print(f"grad scaler step done: fused={args.fused}, {seconds * 1e3:.2f} ms a step, "
      f"host {host * 1e3:.2f} ms a step")
