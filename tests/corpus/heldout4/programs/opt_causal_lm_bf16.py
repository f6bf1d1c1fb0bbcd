"""Causal-language-model pre-training of an OPT-shaped decoder (transformers' OPTForCausalLM, built
from a config, random weights: hidden 1024, 12 layers, 16 heads, FFN 4096, vocabulary 50272 tied
with the LM head, learned positions -- about 205 M parameters, fp32 master weights) under
torch.autocast(bfloat16) with the fused AdamW (fused=True: one multi-tensor kernel family for the
whole update, no host read-back). 16 sequences of 1024 tokens a batch (16384 tokens), synthetic and
already on the GPU (4 batches made once, used in turn); the labels are the inputs (the model shifts
them). The loss is read with .item() every step (the host waits for the step there). No GradScaler
(bf16 needs none). STEPS steps (default 30); prints the median step time."""
import os

import torch
from transformers import OPTConfig, OPTForCausalLM

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
vocab = 50272
config = OPTConfig(vocab_size=vocab, hidden_size=1024, num_hidden_layers=12, num_attention_heads=16,
                   ffn_dim=4096, max_position_embeddings=2048, word_embed_proj_dim=1024,
                   dropout=0.1, attention_dropout=0.0, pad_token_id=1)
model = OPTForCausalLM(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
batch_size, seq_len = 16, 1024
batches = [torch.randint(2, vocab, (batch_size, seq_len), device="cuda") for _ in range(4)]

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    ids = batches[step % 4]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()                     # the host waits for the whole step here
timer.tick()
timer.report("opt_causal_lm_bf16")
print(f"mean loss {running / steps:.3f}")
