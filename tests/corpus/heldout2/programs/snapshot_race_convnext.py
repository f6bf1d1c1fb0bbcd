"""Training torchvision's ConvNeXt-Tiny (random weights, 100 classes, channels_last,
torch.autocast(bfloat16), AdamW with its defaults) with an "asynchronous weight snapshot" for fault
tolerance: after each optimizer step the parameters (27.9 M fp32 in 182 tensors, 106 MiB) are
copied into pinned host buffers with copy_(non_blocking=True) on a side stream, to overlap the next
step instead of stalling the loop. The batch (128 synthetic images) is on the GPU already.

The side stream never waits for the default stream: the code lacks
snapshot_stream.wait_stream(torch.cuda.current_stream()) before the copies. Nothing orders the
copies (which read every parameter) after optimizer.step()'s kernels (which write every parameter)
on the default stream: a real race. Since the host runs ahead of the GPU, the copies are issued
while the default stream is still in this step's forward or backward, so they can start before the
update they are meant to capture and read the weights of the step before, or a mix of both. The
snapshot is never read back in this run, so nothing checks it. The loss is read with .item() every
step. STEPS steps (default 40); prints the median step time."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
model = torchvision.models.convnext_tiny(weights=None, num_classes=100).cuda()
model = model.to(memory_format=torch.channels_last).train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
params = [p for p in model.parameters()]
snapshot = [torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in params]   # pinned host copy
snapshot_stream = torch.cuda.Stream()
images = torch.randn(128, 3, 224, 224, device="cuda").contiguous(memory_format=torch.channels_last)
labels = torch.randint(0, 100, (128,), device="cuda")

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()                                       # writes every parameter (default stream)
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.stream(snapshot_stream):               # missing: wait for the default stream
        for host, p in zip(snapshot, params):
            host.copy_(p.detach(), non_blocking=True)      # reads every parameter (side stream)
    running += loss.item()                                 # the host waits for the default stream only
timer.tick()
timer.report("snapshot_race_convnext")
print(f"mean loss {running / steps:.3f}")
