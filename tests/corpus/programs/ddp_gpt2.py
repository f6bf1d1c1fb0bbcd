"""GPT-2 (transformers, from a config) trained with DistributedDataParallel on 2 GPUs under
torchrun: 30 steps, each rank prints its own median step. Each step: a batch of random tokens
made on the CPU and copied with .cuda(), forward, backward (DDP all-reduces the gradient buckets
during backward on NCCL's stream), AdamW, zero_grad, and loss.item() every step (the host waits
for the step's GPU work). SLOW_RANK=1 SLOW_MS=N makes rank 1 do N ms of extra host work a step
(time.sleep, standing in for a slower data pipeline): rank 0 then waits inside the all-reduce.

  torchrun --nproc_per_node=2 ddp_gpt2.py"""
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from transformers import GPT2Config, GPT2LMHeadModel

from step_timer import StepTimer

rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
slow_ms = float(os.environ.get("SLOW_MS", "0")) if rank == int(os.environ.get("SLOW_RANK", "-1")) else 0.0
torch.manual_seed(0)
config = GPT2Config(n_layer=6, n_embd=512, n_head=8, n_positions=256, vocab_size=8192)
model = DistributedDataParallel(GPT2LMHeadModel(config).cuda(), device_ids=[local])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
timer = StepTimer()
steps = int(os.environ.get("STEPS", "30"))
for step in range(steps):
    timer.tick()
    tokens = torch.randint(0, config.vocab_size, (16, 256))
    if slow_ms:
        time.sleep(slow_ms / 1e3)  # the slow rank's extra host work
    batch = tokens.cuda()
    loss = model(batch, labels=batch).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    loss.item()
timer.tick()
timer.report(f"rank {rank}")
dist.destroy_process_group()
