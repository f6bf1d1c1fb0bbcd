"""Token tagging (NER-style) with a plain PyTorch transformer encoder, and the host syncs a
training loop commonly writes without thinking of them. 64 sentences of up to 512 tokens a batch,
padded to 512 (each sentence 128-512 tokens long), 17 tags; the model is an embedding (32000 x 768)
plus learned positions, nn.TransformerEncoder of 8 pre-norm layers (768 wide, 12 heads, FFN 3072,
GELU, dropout 0.1) with the padding mask, and a linear head; bf16 autocast, fused AdamW. Synthetic
data, already on the GPU (2 batches made once, used in turn).
Syncs: the loss is taken only over the real tokens by boolean-mask indexing (gold[real] at line
58, logits[real] at line 61) -- PyTorch must learn how many elements are True before it can size
the result, so it runs a nonzero and copies the count to the host, which waits there (at line 61 for
the whole forward pass); and the loss and token accuracy are read with .item() every step (line 68).
STEPS steps (default 40); prints the median step time."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
vocab, tags, batch_size, seq_len, dim = 32000, 17, 64, 512, 768


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(seq_len, dim))
        layer = nn.TransformerEncoderLayer(dim, 12, 4 * dim, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 8, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, tags)

    def forward(self, ids, pad):
        h = self.embed(ids) + self.pos
        return self.head(self.norm(self.encoder(h, src_key_padding_mask=pad)))


def make_batch():
    lengths = torch.randint(128, seq_len + 1, (batch_size,), device="cuda")
    pad = torch.arange(seq_len, device="cuda")[None, :] >= lengths[:, None]      # True = padding
    ids = torch.randint(1, vocab, (batch_size, seq_len), device="cuda").masked_fill(pad, 0)
    return ids, pad, torch.randint(0, tags, (batch_size, seq_len), device="cuda")


model = Tagger().cuda().train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
batches = [make_batch() for _ in range(2)]

timer = StepTimer()
log = []
for step in range(steps):
    timer.tick()
    ids, pad, gold = batches[step % 2]
    real = ~pad
    target = gold[real]                                                      # boolean-mask index: syncs
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(ids, pad)                                             # [64, 512, 17]
    active = logits[real].float()                                            # boolean-mask index: syncs
    loss = F.cross_entropy(active, target)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    with torch.no_grad():
        accuracy = (active.argmax(-1) == target).float().mean()
    log.append((loss.item(), accuracy.item()))                               # two more syncs
timer.tick()
timer.report("tagger_mask_index_item")
print(f"last loss {log[-1][0]:.3f}, accuracy {log[-1][1]:.3f}")
