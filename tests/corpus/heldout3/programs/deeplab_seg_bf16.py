"""Semantic-segmentation training of torchvision's DeepLabV3 with a ResNet-50 backbone (random
weights: weights=None and weights_backbone=None, 21 classes, the auxiliary FCN head on, output
stride 8: layer3 and layer4 dilated instead of strided) at 512 x 512, 8 images a batch,
channels_last, torch.autocast(bfloat16), SGD with momentum, the reference recipe's loss (main
cross-entropy + 0.5 x auxiliary, ignore_index 255). The dilated backbone runs its last two stages
at 64 x 64 and the ASPP head's 3 x 3 convolutions take 2048 channels there: about 1 TFLOP of
convolutions an image for forward and backward, some 8 TFLOP a step, in a few hundred large
kernels. The images and masks are synthetic and already on the GPU (4 batches made once, used in
turn); the loss is read with .item() every step. STEPS steps (default 30); prints the median step
time."""
import os

import torch
import torchvision
from torch.nn import functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
classes, batch_size, size = 21, 8, 512
model = torchvision.models.segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None,
                                                           num_classes=classes, aux_loss=True).cuda()
model = model.to(memory_format=torch.channels_last).train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
images = [torch.randn(batch_size, 3, size, size, device="cuda").contiguous(memory_format=torch.channels_last)
          for _ in range(4)]
masks = []
for _ in range(4):
    m = torch.randint(0, classes, (batch_size, size, size), device="cuda")
    m[:, :8, :] = 255                                      # a border to ignore, as in VOC masks
    masks.append(m)

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(images[step % 4])
        loss = F.cross_entropy(out["out"], masks[step % 4], ignore_index=255) \
            + 0.5 * F.cross_entropy(out["aux"], masks[step % 4], ignore_index=255)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    running += loss.item()                                 # the host waits for the whole step here
timer.tick()
timer.report("deeplab_seg_bf16")
print(f"mean loss {running / steps:.3f}")
