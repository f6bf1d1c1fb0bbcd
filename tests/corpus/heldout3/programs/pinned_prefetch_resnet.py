"""Training torchvision's ResNet-50 (random weights, 1000 classes, channels_last,
torch.autocast(bfloat16), SGD with momentum) fed by a correct two-stream prefetcher, the pattern of
NVIDIA's apex data_prefetcher: the batches (128 float32 images of 3 x 224 x 224, 77 MiB, and their
labels) sit in pinned host memory (a pool of 4 made once and never written again), and each step,
while the default stream computes this batch, the next batch is copied host-to-device with
.to("cuda", non_blocking=True) on a side stream.

The ordering is complete: at the top of each step the default stream waits for the side stream
(torch.cuda.current_stream().wait_stream(copy_stream)) before it touches the batch the side stream
copied, and each tensor made on the side stream is marked with record_stream(default stream), so
the caching allocator does not hand its memory back to the side stream (for a later copy) before the
default stream's work that reads it has finished. The next copy is issued after that wait, so the
default stream never waits for the copy in flight. The pinned sources are read-only. No race: the
copy of step k+1 overlaps the compute of step k. The loss is read with .item() every step.
STEPS steps (default 40); prints the median step time."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size = 128
model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last).train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
criterion = torch.nn.CrossEntropyLoss()
# The host-side pool: pinned (page-locked) so that non_blocking copies are truly asynchronous.
host_images = [torch.randn(batch_size, 3, 224, 224).pin_memory() for _ in range(4)]
host_labels = [torch.randint(0, 1000, (batch_size,)).pin_memory() for _ in range(4)]
copy_stream = torch.cuda.Stream()


def prefetch(i):
    """Issues the copy of batch i on the side stream; returns its (still arriving) GPU tensors."""
    with torch.cuda.stream(copy_stream):
        images = host_images[i % 4].to("cuda", non_blocking=True)       # H2D on the side stream
        labels = host_labels[i % 4].to("cuda", non_blocking=True)
    return images, labels


timer = StepTimer()
running = 0.0
next_images, next_labels = prefetch(0)
for step in range(steps):
    timer.tick()
    compute = torch.cuda.current_stream()
    compute.wait_stream(copy_stream)                       # the default stream waits for the copy
    images, labels = next_images, next_labels
    images.record_stream(compute)                          # memory in use by the default stream
    labels.record_stream(compute)
    next_images, next_labels = prefetch(step + 1)          # overlaps this step's compute
    images = images.contiguous(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(images), labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    running += loss.item()                                 # the host waits for the default stream
timer.tick()
timer.report("pinned_prefetch_resnet")
print(f"mean loss {running / steps:.3f}")
