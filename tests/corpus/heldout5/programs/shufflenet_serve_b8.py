"""Small-batch image-classification serving with torchvision's ShuffleNetV2 x1.0 (random weights,
weights=None, eval, torch.inference_mode, fp32, plain eager PyTorch): 8 images of 3 x 224 x 224 a
request, already on the GPU (4 request batches made once, used in turn). ShuffleNetV2 is a
146 MFLOP-per-image network built of many small layers: 16 units, each of 1x1 and depthwise 3x3
convolutions, batch norms, ReLUs, a concatenation and a channel shuffle (a transpose made
contiguous), about 180-200 kernels a forward pass, each on a small tensor. The predicted class of
each image is read back with .cpu() every request. A typical eager serving loop: correct, but each
request is issued op by op from Python. STEPS requests (default 40); prints the median step time."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size = 8
model = torchvision.models.shufflenet_v2_x1_0(weights=None).cuda().eval()
requests = [torch.randn(batch_size, 3, 224, 224, device="cuda") for _ in range(4)]

timer = StepTimer()
served = 0
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        logits = model(requests[step % 4])          # ~190 small kernels, launched one by one
        predictions = logits.argmax(1).cpu()        # blocking read: waits for the last kernels
        served += predictions.numel()
timer.tick()
timer.report("shufflenet_serve_b8")
print(f"served {served} images")
