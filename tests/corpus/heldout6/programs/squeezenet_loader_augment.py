"""Training torchvision's SqueezeNet 1.1 (weights=None, 100 classes, channels_last, bf16 autocast,
SGD with Nesterov momentum) from a map-style Dataset whose augmentation runs per sample on the CPU,
through a DataLoader left at num_workers=0 (but with pin_memory=True). The "photos" are 512
already-decoded uint8 images of 3 x 256 x 256 held in memory; each sample goes through
torchvision.transforms.v2: RandomResizedCrop to 176 x 176 (antialiased resize),
RandomHorizontalFlip, ColorJitter (brightness, contrast, saturation), ToDtype float32 and Normalize.
With num_workers=0 all of it -- 32 samples' transforms, the collate (torch.stack) and the copy into
pinned memory -- runs in the training process, on the training thread, inside the `for` at line 55,
while the GPU waits. The batch then goes to the GPU with non_blocking copies from pinned memory.
The loss is accumulated on the GPU (no sync in the loop). STEPS batches (default 30, drawn with
replacement); prints the median step time."""
import os

import torch
import torch.nn.functional as F
import torchvision
from torch.utils.data import DataLoader, Dataset, RandomSampler
from torchvision.transforms import v2

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size = 32


class DecodedPhotos(Dataset):
    def __init__(self, n=512):
        self.images = torch.randint(0, 256, (n, 3, 256, 256), dtype=torch.uint8)
        self.labels = torch.randint(0, 100, (n,))
        self.transform = v2.Compose([
            v2.RandomResizedCrop(176, antialias=True),
            v2.RandomHorizontalFlip(),
            v2.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4),
            v2.ToDtype(torch.float32, scale=True),
            v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
        ])

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(self.images[i]), self.labels[i]


dataset = DecodedPhotos()
sampler = RandomSampler(dataset, replacement=True, num_samples=steps * batch_size)
loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=0, pin_memory=True)
model = torchvision.models.squeezenet1_1(weights=None, num_classes=100)
model = model.cuda().to(memory_format=torch.channels_last).train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True, weight_decay=5e-5)

timer = StepTimer()
total = torch.zeros((), device="cuda")
for images, labels in loader:                  # the whole batch is made here, on this thread
    timer.tick()
    images = images.cuda(non_blocking=True).contiguous(memory_format=torch.channels_last)
    labels = labels.cuda(non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    total += loss.detach()
timer.tick()
timer.report("squeezenet_loader_augment")
print(f"mean loss {total.item() / steps:.3f}")
