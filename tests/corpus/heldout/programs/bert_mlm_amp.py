"""Masked-language-model pretraining of a small BERT (Hugging Face transformers, built from a
config, random weights) with mixed precision the way the PyTorch AMP recipe shows it:
torch.autocast(float16) around the forward, torch.amp.GradScaler around backward and step,
AdamW with its defaults (foreach, not fused). Each step masks 15% of a batch of random token ids
on the CPU (the data collator's job), copies input ids and labels with .to(device) (pageable
memory, non_blocking=False), and logs the loss every 10 steps. No attention_mask is passed: the
sequences are packed, full length. STEPS steps (default 50); prints the median step time."""
import os

import torch
from transformers import BertConfig, BertForMaskedLM

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "50"))
device = torch.device("cuda")
torch.manual_seed(0)
config = BertConfig(vocab_size=8192, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                    intermediate_size=1024, max_position_embeddings=128)
model = BertForMaskedLM(config).to(device)
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
scaler = torch.amp.GradScaler("cuda")
mask_id, batch_size, seq_len = 4, 32, 128


def mask_tokens(ids):
    """What DataCollatorForLanguageModeling does, on the CPU: 15% of the positions become [MASK]
    and are the only ones with a label; the rest are ignored by the loss (-100)."""
    labels = ids.clone()
    masked = torch.bernoulli(torch.full(ids.shape, 0.15)).bool()
    labels[~masked] = -100
    ids = ids.clone()
    ids[masked] = mask_id
    return ids, labels


timer = StepTimer()
for step in range(steps):
    timer.tick()
    input_ids, labels = mask_tokens(torch.randint(5, config.vocab_size, (batch_size, seq_len)))
    input_ids = input_ids.to(device)              # pageable copy; the host waits for it
    labels = labels.to(device)                    # pageable copy; the host waits for it
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(input_ids=input_ids, labels=labels).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)                        # reads found_inf with .item(): waits for backward
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.3f}", flush=True)
torch.cuda.synchronize()
timer.tick()
timer.report("bert_mlm_amp")
