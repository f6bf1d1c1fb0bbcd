"""A character-level denoising model whose batches are made in Python on the training thread. The
corpus is one long Python string (~2.4 M characters of synthetic "words"); each step picks 128
random windows of 512 characters and turns them into ids with a dict lookup per character,
replacing 15 % of them by a MASK id with random.random() per character -- a nested list
comprehension over 65,536 characters, then torch.tensor() of the nested list straight to the GPU,
all in one statement (line 70). The clean targets are gathered on the GPU from the same offsets.
The model is small: an embedding of 256, four residual blocks of LayerNorm, a width-5 Conv1d
(256 -> 256) and GELU, and a linear head over the 49 ids; bf16 autocast, AdamW (foreach, the
default). The loss is accumulated on the GPU (no sync in the loop) and read once at the end.
STEPS steps (default 40); prints the median step time."""
import os
import random
import string

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
random.seed(0)
torch.manual_seed(0)
alphabet = string.ascii_lowercase + string.digits + " .,;:'!?-\n"     # 47 characters
stoi = {c: i + 2 for i, c in enumerate(alphabet)}                      # 0 = pad, 1 = MASK
MASK, vocab = 1, len(alphabet) + 2
words = ["".join(random.choices(string.ascii_lowercase, k=random.randint(2, 9))) for _ in range(5000)]
text = " ".join(random.choices(words, k=400_000))                      # one Python str, ~2.4 M chars
text_ids = torch.tensor([stoi[c] for c in text], device="cuda")        # the clean ids, once
batch_size, seq_len, dim = 128, 512, 256
positions = torch.arange(seq_len, device="cuda")


class CharDenoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norms = nn.ModuleList(nn.LayerNorm(dim) for _ in range(4))
        self.convs = nn.ModuleList(nn.Conv1d(dim, dim, 5, padding=2) for _ in range(4))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        h = self.embed(ids)                                            # [B, T, dim]
        for norm, conv in zip(self.norms, self.convs):
            h = h + F.gelu(conv(norm(h).transpose(1, 2))).transpose(1, 2)
        return self.head(h)


model = CharDenoiser().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)


def train_step(noisy, offsets):
    offs = torch.tensor(offsets, device="cuda")
    clean = text_ids[offs[:, None] + positions]                        # [B, T] targets, gathered on the GPU
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(noisy)
    loss = F.cross_entropy(logits.float().view(-1, vocab), clean.view(-1))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


timer = StepTimer()
total = torch.zeros((), device="cuda")
for step in range(steps):
    timer.tick()
    offsets = [random.randrange(len(text) - seq_len) for _ in range(batch_size)]
    noisy = torch.tensor([[MASK if random.random() < 0.15 else stoi[c] for c in text[o:o + seq_len]] for o in offsets], device="cuda")
    total += train_step(noisy, offsets)
timer.tick()
timer.report("charnoise_python_batch")
print(f"mean loss {total.item() / steps:.3f}")
