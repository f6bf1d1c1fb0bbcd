"""GPT-2 from Hugging Face transformers, built from a config (no download), trained on random
tokens as a user first writes the loop: the batch made on the CPU and copied with .cuda()
(pageable memory), AdamW with its defaults, and the loss read with .item() every step to log
it. No NVTX or profiler ranges. STEPS steps (default 40); prints the median step time."""
import os

import torch
from transformers import GPT2Config, GPT2LMHeadModel

from step_timer import StepTimer, maybe_profiled

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
config = GPT2Config(n_layer=4, n_embd=256, n_head=4, n_positions=256, vocab_size=8192)
model = GPT2LMHeadModel(config).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
timer = StepTimer()
losses = []
with maybe_profiled(steps) as prof:
    for step in range(steps):
        timer.tick()
        tokens = torch.randint(0, config.vocab_size, (16, 256))
        batch = tokens.cuda()
        loss = model(batch, labels=batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if prof is not None:
            prof.step()
    timer.tick()
timer.report("gpt2_train")
print(f"last loss {losses[-1]:.3f}")
