"""Causal-LM pretraining of a small Llama (transformers, built from a config, random weights) in
plain fp32 -- no autocast, TF32 left at PyTorch's default (off for matmuls) -- fed by a
DataLoader over a pre-tokenized corpus (a TensorDataset of fixed-length token blocks) with
pin_memory=True and num_workers=0, each batch moved with .to(device, non_blocking=True). AdamW
(foreach). The loss is read with .item() only every 10 steps to log it. No attention_mask (packed
full-length blocks). STEPS steps (default 40).

The loop syncs only every 10 steps, so a per-step perf_counter would measure the host's
submission; the printed median is the wall time between two torch.cuda.synchronize() calls
(after WARM steps, and after the last) divided by the steps between them."""
import os
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

steps = int(os.environ.get("STEPS", "40"))
warm = 5
device = torch.device("cuda")
torch.manual_seed(0)
config = LlamaConfig(vocab_size=16000, hidden_size=512, intermediate_size=1376, num_hidden_layers=4,
                     num_attention_heads=8, num_key_value_heads=8, max_position_embeddings=512)
model = LlamaForCausalLM(config).to(device)
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

blocks = torch.randint(0, config.vocab_size, (16 * steps, 512))          # the tokenized corpus
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(blocks), batch_size=16, shuffle=True,
                                     num_workers=0, pin_memory=True, drop_last=True)

for step, (tokens,) in enumerate(loader):
    if step == warm:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
    tokens = tokens.to(device, non_blocking=True)  # from the pinned batch: asynchronous
    loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if step % 10 == 9:
        print(f"step {step} loss {loss.item():.3f}", flush=True)  # the only sync in the loop
torch.cuda.synchronize()
elapsed = time.perf_counter() - t0
print(f"llama_pretrain_fp32: {steps - warm} steps timed; median step {elapsed / (steps - warm) * 1e3:.3f} ms "
      f"(window between two synchronize() calls / {steps - warm} steps)")
