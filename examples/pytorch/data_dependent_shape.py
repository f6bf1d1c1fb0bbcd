"""A result whose shape depends on the data makes the host wait: to allocate x[x > 0] (or
torch.nonzero, masked_select, torch.unique), PyTorch first reads back how many elements were
selected, a host sync in the middle of the step. --where keeps the shape instead
(torch.where(x > 0, x, 0)): the same sum, no read, and the host runs ahead.

A 2 ms spin kernel stands for the step's earlier work, so the read visibly waits for it.
STREAMLAB_STEPS sets the number of studied steps (default 3), each in a range "step":
`streamlab-cli compare mask.json where.json --per step` compares the two per step."""
import argparse

import torch

from streamlab_example import spin, studied_steps, warm_up

parser = argparse.ArgumentParser()
parser.add_argument("--where", action="store_true", help="torch.where(x > 0, x, 0): the shape is kept")
args = parser.parse_args()

warm_up()
torch.manual_seed(0)
x = torch.randn(1 << 20, device="cuda")


def step():
    spin(2)  # the step's earlier work
    if args.where:
        positive = torch.where(x > 0, x, 0)  # same shape as x: nothing to read back
    else:
        positive = x[x > 0]  # how many? the host reads the count back and waits for it
    return positive.sum()


seconds, host, total = studied_steps(step)
print(f"data dependent shape done: where={args.where}, {seconds * 1e3:.2f} ms a step, "
      f"host {host * 1e3:.2f} ms a step, sum {total.item():.1f}")
