"""Causal-language-model pre-training of a small Mistral-shaped decoder (transformers'
MistralForCausalLM, built from a config, random weights: hidden 768, 6 layers, 12 query heads
sharing 4 key/value heads (grouped-query attention, head_dim 64), SwiGLU FFN 2048, RMSNorm, rotary
positions, vocabulary 32000 with an untied LM head -- about 87 M parameters) in plain fp32: no
autocast, and the default fp32 matmul precision (no TF32), so every GEMM runs on the CUDA cores,
not the tensor cores. The fused AdamW (fused=True). 8 sequences of 512 tokens a batch (4096
tokens), synthetic and already on the GPU (4 batches made once, used in turn); the labels are the
inputs (the model shifts them). The loss is read with .item() every step. STEPS steps (default
20); prints the median step time."""
import os

import torch
from transformers import MistralConfig, MistralForCausalLM

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "20"))
torch.manual_seed(0)
vocab = 32000
config = MistralConfig(vocab_size=vocab, hidden_size=768, intermediate_size=2048, num_hidden_layers=6,
                       num_attention_heads=12, num_key_value_heads=4, max_position_embeddings=1024,
                       sliding_window=None, use_cache=False)
model = MistralForCausalLM(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
batch_size, seq_len = 8, 512
batches = [torch.randint(3, vocab, (batch_size, seq_len), device="cuda") for _ in range(4)]

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    ids = batches[step % 4]
    loss = model(input_ids=ids, labels=ids).loss   # fp32 forward: SGEMMs on the CUDA cores
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()                          # the host waits for the whole step here
timer.tick()
timer.report("mistral_gqa_fp32")
print(f"mean loss {running / steps:.3f}")
