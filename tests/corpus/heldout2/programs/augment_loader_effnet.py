"""Image-classification training of torchvision's EfficientNet-B0 (random weights, 100 classes,
channels_last, torch.autocast(bfloat16)) fed the way the torchvision reference recipe feeds it,
but with the DataLoader's default of num_workers=0: each sample is a decoded 320 x 320 uint8 image
(synthetic, from an in-memory pool) augmented on the CPU by torchvision.transforms.v2
(RandomResizedCrop to 224 with antialiasing, horizontal flip, ColorJitter, to float, normalize), the
batch of 64 is collated and, with pin_memory=True, pinned -- all in the main process, between two
steps, while the GPU has nothing to do. The batch is then moved with non_blocking=True; SGD with
Nesterov momentum, label smoothing 0.1, and the loss read with .item() every step (the host waits
for the step's GPU work there). STEPS steps (default 40); prints the median step time."""
import os

import torch
import torchvision
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms import v2

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size, classes = 64, 100


class DecodedImages(Dataset):
    """Stands for an ImageFolder after decoding: uint8 CHW tensors, augmented per sample."""

    def __init__(self, length):
        self.pool = [torch.randint(0, 256, (3, 320, 320), dtype=torch.uint8) for _ in range(256)]
        self.labels = torch.randint(0, classes, (len(self.pool),))
        self.length = length
        self.transform = v2.Compose([
            v2.RandomResizedCrop(224, antialias=True), v2.RandomHorizontalFlip(),
            v2.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4),
            v2.ToDtype(torch.float32, scale=True), v2.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return self.transform(self.pool[i % len(self.pool)]), self.labels[i % len(self.pool)]


loader = DataLoader(DecodedImages(steps * batch_size), batch_size=batch_size, shuffle=True, drop_last=True,
                    num_workers=0, pin_memory=True)
model = torchvision.models.efficientnet_b0(weights=None, num_classes=classes).cuda()
model = model.to(memory_format=torch.channels_last).train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-5)
criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)

timer = StepTimer()
running = 0.0
for images, targets in loader:                             # augments, collates and pins 64 images
    timer.tick()
    images = images.cuda(non_blocking=True).contiguous(memory_format=torch.channels_last)
    targets = targets.cuda(non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(images), targets)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    running += loss.item()                                 # the host waits for the step's GPU work
timer.tick()
timer.report("augment_loader_effnet")
print(f"mean loss {running / steps:.3f}")
