"""ImageNet-style training with an Apex-style CUDA prefetcher that forgets record_stream. The
prefetcher copies the next batch from pinned host memory to the GPU on a side stream while the
current step trains (preload, lines 39-40), and next() makes the default stream wait for that copy
(line 44) before handing the batch out, so the copy is ordered before the step that reads it. But
the batch's memory was allocated on the side stream, and nothing tells the caching allocator that
the default stream uses it too (the missing images.record_stream(torch.cuda.current_stream()) of
Apex's data_prefetcher). When the loop drops a batch (the `images, labels = ...` of line 59, one
step later) its block goes straight back to the side stream's pool, and the very next preload
(line 39) gets it and copies a new batch into it -- with nothing ordering that write after the
default stream's reads of the old batch (the first convolution at line 61, and its weight gradient
in the backward pass at line 62; the labels at line 61 too): a write-after-read race every step.
There is no host sync in the loop (the loss is summed on the GPU), so the host runs ahead of the GPU
and the copy really can land while the old batch is still being read. torchvision's
wide_resnet50_2 (weights=None, about 68.9 M parameters), bf16 autocast, SGD with momentum (foreach),
128 images of 3 x 224 x 224 a step (6 synthetic batches in pinned memory, used in turn).
STEPS steps (default 40); prints the median step time."""
import os

import torch
import torch.nn.functional as F
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size = 128
host_images = [torch.randn(batch_size, 3, 224, 224).pin_memory() for _ in range(6)]
host_labels = [torch.randint(0, 1000, (batch_size,)).pin_memory() for _ in range(6)]


class CudaPrefetcher:
    def __init__(self):
        self.stream, self.i = torch.cuda.Stream(), 0
        self.preload()

    def preload(self):
        with torch.cuda.stream(self.stream):
            self.images = host_images[self.i % 6].cuda(non_blocking=True)     # allocated on the side stream
            self.labels = host_labels[self.i % 6].cuda(non_blocking=True)
        self.i += 1

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)                  # the copy is done first
        images, labels = self.images, self.labels
        # BUG: images.record_stream(torch.cuda.current_stream()) (and labels') missing here.
        self.preload()
        return images, labels


model = torchvision.models.wide_resnet50_2(weights=None).cuda().train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=5e-5)
prefetcher = CudaPrefetcher()

timer = StepTimer()
total = torch.zeros((), device="cuda")
for step in range(steps):
    timer.tick()
    images, labels = prefetcher.next()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(images), labels)                         # reads the batch
    loss.backward()                                                           # reads it again (conv1's dW)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    total += loss.detach()
timer.tick()
timer.report("wrn_prefetcher_no_record_stream")
print(f"mean loss {total.item() / steps:.3f}")
