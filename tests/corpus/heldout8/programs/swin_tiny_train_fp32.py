"""Image classification training of a Swin Transformer in plain fp32 (no autocast), as a first
run often is: transformers' SwinForImageClassification built from a SwinConfig with random weights
(the swin-tiny shape: patch 4, embedding 96, depths 2-2-6-2, heads 3-6-12-24, window 7, 224 x 224
images, 1000 classes -- about 28 M parameters; drop-path off, dropout off). 128 synthetic images a
step, already on the GPU (3 batches made once, used in turn), cross-entropy on the logits,
torch.optim.AdamW (the default foreach implementation, which reads nothing back to the host). The
matrix products run in true fp32 (PyTorch leaves TF32 off for matmuls by default); only the patch
embedding's convolution may use TF32 (cuDNN's default). One stream, no copy and no host sync in the
loop: the loss is summed on the GPU and read once at the end.
STEPS steps (default 30); prints the median step time."""
import os

import torch
import torch.nn.functional as F
from transformers import SwinConfig, SwinForImageClassification

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, classes = 128, 1000
config = SwinConfig(image_size=224, patch_size=4, embed_dim=96, depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24],
                    window_size=7, drop_path_rate=0.0, num_labels=classes)
model = SwinForImageClassification(config).cuda().train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
batches = [(torch.randn(batch_size, 3, 224, 224, device="cuda"),
            torch.randint(0, classes, (batch_size,), device="cuda")) for _ in range(3)]

timer = StepTimer()
total = torch.zeros((), device="cuda")
for step in range(steps):
    timer.tick()
    images, labels = batches[step % 3]
    logits = model(pixel_values=images).logits                        # [128, 1000]
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    total += loss.detach()
timer.tick()
timer.report("swin_tiny_train_fp32")
print(f"mean loss {total.item() / steps:.4f}")
