"""Image-classification training of a ViT (transformers' ViTForImageClassification, built from a
config, random weights: 6 layers of ViT-Base width) as a throughput benchmark is written: one
synthetic batch of 128 images made on the GPU once and reused, forward under
torch.autocast(bfloat16), AdamW (foreach), and the loss read with .item() every 20 steps only.
STEPS steps (default 40).

The loop syncs only every 20 steps, so a per-step perf_counter would measure the host's
submission; the printed median is the wall time between two torch.cuda.synchronize() calls
(after WARM steps, and after the last) divided by the steps between them."""
import os
import time

import torch
from transformers import ViTConfig, ViTForImageClassification

steps = int(os.environ.get("STEPS", "40"))
warm = 5
torch.manual_seed(0)
config = ViTConfig(image_size=224, patch_size=16, num_channels=3, hidden_size=768, num_hidden_layers=6,
                   num_attention_heads=12, intermediate_size=3072, num_labels=100)
model = ViTForImageClassification(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.05)
images = torch.randn(128, 3, 224, 224, device="cuda")     # synthetic data, made on the GPU once
labels = torch.randint(0, 100, (128,), device="cuda")

for step in range(steps):
    if step == warm:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(pixel_values=images, labels=labels).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if step % 20 == 19:
        print(f"step {step} loss {loss.item():.3f}", flush=True)  # the only sync in the loop
torch.cuda.synchronize()
elapsed = time.perf_counter() - t0
print(f"vit_train_bf16: {steps - warm} steps timed; median step {elapsed / (steps - warm) * 1e3:.3f} ms "
      f"(window between two synchronize() calls / {steps - warm} steps)")
