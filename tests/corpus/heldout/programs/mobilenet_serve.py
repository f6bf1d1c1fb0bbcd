"""Batch image classification with torchvision's MobileNetV3-Small (random weights, eval mode,
torch.inference_mode) the way a first serving script is written: decoded images arrive as uint8
CPU tensors (N, 3, 224, 224) in ordinary (pageable) memory, each batch is moved with .cuda()
(non_blocking=False), converted to float and normalized on the GPU, and the top-5 class ids are
brought back with .cpu() to be turned into Python lists. 256 images a batch, STEPS batches
(default 40); prints the median step time (each step ends in .cpu(), which waits for the GPU)."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
model = torchvision.models.mobilenet_v3_small(weights=None, num_classes=1000).cuda().eval()
mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
# Four decoded batches (uint8, pageable), reused in turn: 256 x 3 x 224 x 224 bytes = 38.5 MB each.
decoded = [torch.randint(0, 256, (256, 3, 224, 224), dtype=torch.uint8) for _ in range(4)]

timer = StepTimer()
answers = []
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        images = decoded[step % 4].cuda()                  # pageable copy of 38.5 MB; the host waits
        x = (images.float() - mean) / std
        logits = model(x)
        top5 = logits.topk(5, dim=1).indices.cpu()         # the host waits for the forward
        answers.extend(top5.tolist())
timer.tick()
timer.report("mobilenet_serve")
print(f"{len(answers)} images classified")
