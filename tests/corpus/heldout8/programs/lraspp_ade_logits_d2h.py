"""Semantic segmentation inference that ships the full logits to the host: torchvision's
lraspp_mobilenet_v3_large (weights=None, weights_backbone=None, 150 ADE20K-style classes; about 3.2 M
parameters), fp32, eval mode, torch.inference_mode. Each step: a batch of 8 images of 3 x 512 x 512
(4 synthetic batches in pinned memory, used in turn) is copied to the GPU with non_blocking=True
(line 34, a real asynchronous DMA), the model runs (line 35: a light backbone and head at 1/8 and
1/16 resolution, then a bilinear upsampling of the 150-class logits to 512 x 512), and the whole
8 x 150 x 512 x 512 fp32 logits tensor -- 1.26 GB -- is copied into a pinned host buffer with
non_blocking=True (line 36), after which the host waits for the default stream (line 37) and reads
one pixel's scores (line 38). The per-pixel argmax that a caller needs could have been taken on the
GPU (an 8 x 512 x 512 label map is 2 MB); copying the logits instead moves 600 bytes a pixel across
PCIe. One stream: the upload, the model and the download are ordered by it, and the host reads the
buffer only after the synchronize and rewrites nothing the GPU still uses. No race.
STEPS steps (default 30); prints the median step time."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, classes, size = 8, 150, 512
model = torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                  num_classes=classes).cuda().eval()
host_images = [torch.randn(batch_size, 3, size, size).pin_memory() for _ in range(4)]
host_logits = torch.empty(batch_size, classes, size, size, pin_memory=True)

timer = StepTimer()
corner = 0.0
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        images = host_images[step % 4].to("cuda", non_blocking=True)
        logits = model(images)["out"]                                        # [8, 150, 512, 512] fp32
        host_logits.copy_(logits, non_blocking=True)                         # 1.26 GB device -> pinned host
        torch.cuda.current_stream().synchronize()
        corner += float(host_logits[0, :, 0, 0].max())
    timer.tick()
timer.report("lraspp_ade_logits_d2h")
print(f"mean corner score {corner / steps:.4f}")
