"""ELECTRA-style replaced-token-detection pre-training of the discriminator, in fp16 autocast with a
GradScaler (transformers' ElectraForPreTraining built from an ElectraConfig, random weights: hidden
1024, 12 layers, 16 heads, FFN 4096, vocabulary 30522, embedding size 1024 -- about 184 M
parameters; the config's dropout of 0.1 stays on). The generator is left out: the "corrupted"
input ids and the 0/1 "was this token replaced" labels are synthetic, 96 sequences of 512 tokens a
batch, already on the GPU (3 batches made once, used in turn), no padding, so no attention mask is
passed. The binary cross-entropy is computed in fp32 on the discriminator's logits. AdamW is the
default (foreach) implementation, so scaler.step() reads the found-inf flag on the host before it
steps (a small device-to-host read). The loss is accumulated on the GPU and read once at the end.
STEPS steps (default 40); prints the median step time."""
import os

import torch
import torch.nn.functional as F
from transformers import ElectraConfig, ElectraForPreTraining

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
vocab, batch_size, seq_len = 30522, 96, 512
config = ElectraConfig(vocab_size=vocab, embedding_size=1024, hidden_size=1024, num_hidden_layers=12,
                       num_attention_heads=16, intermediate_size=4096, max_position_embeddings=512)
model = ElectraForPreTraining(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, weight_decay=0.01)
scaler = torch.amp.GradScaler("cuda")
batches = [(torch.randint(0, vocab, (batch_size, seq_len), device="cuda"),
            (torch.rand(batch_size, seq_len, device="cuda") < 0.15).float()) for _ in range(3)]

timer = StepTimer()
total = torch.zeros((), device="cuda")
for step in range(steps):
    timer.tick()
    ids, replaced = batches[step % 3]
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(input_ids=ids).logits                          # [96, 512], one score a token
    loss = F.binary_cross_entropy_with_logits(logits.float(), replaced)
    scaler.scale(loss).backward()
    scaler.step(optimizer)                                            # reads found_inf on the host
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    total += loss.detach()
timer.tick()
timer.report("electra_rtd_fp16_scaler")
print(f"mean loss {total.item() / steps:.4f}, scale {scaler.get_scale():.0f}")
