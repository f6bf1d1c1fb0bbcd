"""Inference with naive CPU weight offloading, the way a first "model too big for the GPU" script is
written: the weights of a stack of 4 feed-forward blocks (d_model 4096, hidden 16384, fp16: two
128 MiB matrices a block, 1 GiB in all) stay in ordinary (pageable) CPU memory, and each block's two
matrices are moved to the GPU with .to("cuda") (non_blocking=False) right before the block runs and
dropped after it. The activations (256 tokens x 4096, fp16) stay on the GPU; each step ends by
reading the 256 output norms back with .cpu(). Every step therefore moves 1 GiB from pageable
memory while the GPU's arithmetic is small (about 0.27 TFLOP a step). STEPS steps (default 30);
prints the median step time."""
import os

import torch
from torch.nn import functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
d_model, d_ff, n_blocks, tokens = 4096, 16384, 4, 256
# The offloaded weights: pageable CPU tensors (not pinned), 128 MiB each.
host_blocks = [(torch.empty(d_model, d_ff, dtype=torch.float16).uniform_(-0.01, 0.01),
                torch.empty(d_ff, d_model, dtype=torch.float16).uniform_(-0.01, 0.01))
               for _ in range(n_blocks)]
# Four batches of token activations, already on the GPU.
inputs = [torch.randn(tokens, d_model, device="cuda", dtype=torch.float16) for _ in range(4)]

timer = StepTimer()
norms = []
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        x = inputs[step % 4]
        for w_in, w_out in host_blocks:
            w_in_gpu = w_in.to("cuda")                # 128 MiB pageable copy; the host waits for it
            w_out_gpu = w_out.to("cuda")              # 128 MiB pageable copy; the host waits for it
            x = x + F.gelu(x @ w_in_gpu) @ w_out_gpu
        norms.append(x.float().norm(dim=1).cpu())    # the host waits for the last block
timer.tick()
timer.report("offload_ffn_pageable")
print(f"mean output norm {torch.cat(norms).mean().item():.3f}")
