"""A small Qwen2 causal LM (transformers, built from a config, random weights) trained with
DistributedDataParallel on 2 GPUs under torchrun. Each rank reads its own shard of pre-tokenized
blocks through a DataLoader (pin_memory=True, num_workers=0) and moves it with
.to(device, non_blocking=True); forward under torch.autocast(bfloat16), backward (DDP all-reduces
the gradient buckets on NCCL's stream while backward runs), AdamW (foreach), and the loss summed
with .item() every step (the host waits for the step's GPU work, all-reduce included).
30 steps; each rank prints its own median step ("rank R: ... median step X ms").

UNEVEN_RANK=R (unset by default) makes rank R's shard hold blocks twice as long (1024 tokens
instead of 512: the same batch size, twice the tokens) -- a shard of longer documents. That rank
does about twice the GPU work a step (extra GPU work, not host work); the other rank finishes its
backward early and waits inside the gradient all-reduce for it, every step.

  torchrun --nproc_per_node=2 ddp_qwen2.py"""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from transformers import Qwen2Config, Qwen2ForCausalLM

from step_timer import StepTimer

rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
device = torch.device("cuda", local)
dist.init_process_group("nccl", device_id=device)
steps = int(os.environ.get("STEPS", "30"))
seq_len = 1024 if rank == int(os.environ.get("UNEVEN_RANK", "-1")) else 512
torch.manual_seed(0)
config = Qwen2Config(vocab_size=16384, hidden_size=768, intermediate_size=2048, num_hidden_layers=4,
                     num_attention_heads=12, num_key_value_heads=4, max_position_embeddings=1024)
model = DistributedDataParallel(Qwen2ForCausalLM(config).to(device), device_ids=[local])
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

torch.manual_seed(1 + rank)  # each rank's shard differs
shard = torch.randint(0, config.vocab_size, (32 * steps, seq_len))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(shard), batch_size=32, shuffle=True,
                                     num_workers=0, pin_memory=True, drop_last=True)

timer = StepTimer()
total = 0.0
for (tokens,) in loader:
    timer.tick()
    tokens = tokens.to(device, non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()                                   # DDP's bucket all-reduces run during this
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    total += loss.item()                              # the host waits for the whole step here
timer.tick()
timer.report(f"rank {rank}")
print(f"rank {rank}: mean loss {total / steps:.3f} (sequence length {seq_len})")
dist.destroy_process_group()
