"""A sentence-embedding service: a 6-layer transformer encoder (768 wide, 12 heads, FFN 3072, GELU,
pre-norm, learned positions, vocabulary 30000, weights in bf16, written as plain nn.Module code with
F.scaled_dot_product_attention) compiled with torch.compile(mode="reduce-overhead"): Inductor fuses
the elementwise work into Triton kernels and the compiled graph is captured once into a CUDA graph
(CUDA Graph Trees) and replayed on every later call, so a call costs the host one graph launch plus
Dynamo's guards instead of ~150 kernel launches. Each request is 64 sentences of 256 tokens
(synthetic, already on the GPU, 4 batches used in turn, same shape every time: no recompilation);
the model masks nothing, mean-pools the last hidden states and L2-normalises them, and the service
copies the 64 x 768 embeddings to the host (.cpu(), line 66), which waits for the replay to finish.
8 warm-up calls (compilation, the Graph Trees' warm-up run and recording) are made before the timed
loop. STEPS timed requests (default 40); prints the median request time."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
vocab, batch_size, seq_len, dim, heads, layers = 30000, 64, 256, 768, 12, 6


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, heads, dim // heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, dim))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(seq_len, dim) * 0.02)
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.norm = nn.LayerNorm(dim)

    def forward(self, ids):
        x = self.embed(ids) + self.pos
        for block in self.blocks:
            x = block(x)
        return F.normalize(self.norm(x).mean(dim=1), dim=-1)


model = Embedder().cuda().to(torch.bfloat16).eval()
encode = torch.compile(model, mode="reduce-overhead")
requests = [torch.randint(0, vocab, (batch_size, seq_len), device="cuda") for _ in range(4)]

with torch.no_grad():
    for i in range(8):
        encode(requests[i % 4]).cpu()                        # compile, warm up, record the graph
    timer = StepTimer()
    served = []
    for step in range(steps):
        timer.tick()
        vectors = encode(requests[step % 4]).cpu()           # one graph replay, then a D2H copy
        served.append(float(vectors[0, 0]))
    timer.tick()
timer.report("embedder_compile_cudagraphs")
print(f"served {len(served)} requests, first value {served[0]:.4f}")
