"""Sequence-to-sequence fine-tuning of a small T5 (transformers, built from a config, random
weights) as a summarization script is usually written: each step a padded batch (random source
and target lengths, pad id 0, label padding -100) is built on the CPU with its attention_mask,
moved with .cuda() tensor by tensor (pageable memory, non_blocking=False), forward under
torch.autocast(bfloat16) (no GradScaler needed for bf16), backward, gradient clipping, fused
AdamW, a linear warm-up schedule, and the running loss read with .item() every step.
STEPS steps (default 40); prints the median step time."""
import os

import torch
from transformers import T5Config, T5ForConditionalGeneration

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
config = T5Config(vocab_size=8192, d_model=256, d_kv=64, d_ff=1024, num_layers=4, num_decoder_layers=4,
                  num_heads=4, decoder_start_token_id=0, pad_token_id=0)
model = T5ForConditionalGeneration(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 10))
batch_size, src_len, tgt_len = 16, 256, 64


def make_batch():
    """A padded batch as a tokenizer + DataCollatorForSeq2Seq would return it (CPU tensors)."""
    src_lengths = torch.randint(src_len // 4, src_len + 1, (batch_size,))
    tgt_lengths = torch.randint(tgt_len // 4, tgt_len + 1, (batch_size,))
    attention_mask = (torch.arange(src_len)[None, :] < src_lengths[:, None]).long()
    input_ids = torch.randint(2, config.vocab_size, (batch_size, src_len)) * attention_mask
    labels = torch.randint(2, config.vocab_size, (batch_size, tgt_len))
    labels[torch.arange(tgt_len)[None, :] >= tgt_lengths[:, None]] = -100
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    batch = make_batch()
    batch = {k: v.cuda() for k, v in batch.items()}    # three pageable copies; the host waits for each
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(**batch).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()                              # the host waits for the whole step here
timer.tick()
timer.report("t5_finetune")
print(f"mean loss {running / steps:.3f}")
