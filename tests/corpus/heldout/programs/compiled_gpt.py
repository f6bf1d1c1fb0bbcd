"""A small GPT written in plain PyTorch, nanoGPT style, trained with torch.compile(model) (default
mode: Inductor kernels, no CUDA graphs): batches of random offsets into a token array held on the
CPU, stacked on the CPU, pinned and moved with non_blocking=True (as nanoGPT's get_batch does),
forward and loss inside the compiled module under torch.autocast(bfloat16), fused AdamW, the loss
read with .item() every 10 steps only. The first step compiles (seconds); the timed window starts
after WARM steps. STEPS steps (default 40).

The loop syncs only every 10 steps, so the printed median is the wall time between two
torch.cuda.synchronize() calls divided by the steps between them."""
import math
import os
import time

import torch
from torch import nn
from torch.nn import functional as F

steps = int(os.environ.get("STEPS", "40"))
warm = 5
torch.manual_seed(0)
vocab, width, heads, layers, block_size, batch_size = 8192, 1024, 16, 2, 1024, 16


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block_size, width)
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tok.weight  # weight tying
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * layers))

    def forward(self, idx, targets):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, vocab).float(), targets.view(-1))


corpus = torch.randint(0, vocab, (4_000_000,))  # the tokenized training text, on the CPU


def get_batch():
    ix = torch.randint(len(corpus) - block_size - 1, (batch_size,))
    x = torch.stack([corpus[i:i + block_size] for i in ix])
    y = torch.stack([corpus[i + 1:i + 1 + block_size] for i in ix])
    return x.pin_memory().to("cuda", non_blocking=True), y.pin_memory().to("cuda", non_blocking=True)


model = GPT().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1, fused=True)
model = torch.compile(model)

for step in range(steps):
    if step == warm:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
    x, y = get_batch()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if step % 10 == 9:
        print(f"step {step} loss {loss.item():.3f}", flush=True)  # the only sync in the loop
torch.cuda.synchronize()
elapsed = time.perf_counter() - t0
print(f"compiled_gpt: {steps - warm} steps timed; median step {elapsed / (steps - warm) * 1e3:.3f} ms "
      f"(window between two synchronize() calls / {steps - warm} steps)")
