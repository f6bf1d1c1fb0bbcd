"""Video action-recognition training that keeps an exponential moving average (EMA) of the weights,
updated on a side stream "so that it overlaps the next step" -- and forgets to make that stream
wait. torchvision's R(2+1)D-18 (video.r2plus1d_18, weights=None, 400 classes, about 31.5 M
parameters, bf16 autocast, fused AdamW) on 32 clips of 3 x 16 x 112 x 112 a step (synthetic,
already on the GPU, 2 batches used in turn). The EMA copy is made once with deepcopy. Each step:
forward, backward, then optimizer.step() (line 43: the fused AdamW kernels WRITE every parameter,
on the default stream), then, inside torch.cuda.stream(ema_stream), one torch._foreach_lerp_ of the
EMA tensors toward the parameters (line 47: READS every parameter, on the side stream). There is
NO ema_stream.wait_stream(torch.cuda.current_stream()) before it: the host launches the optimizer
and the EMA update back to back while the GPU is still running the backward pass, and nothing on
the GPU orders the parameter writes before the EMA's reads -- a read-after-write race every step
(the EMA may read old or half-updated weights). Nor is anything ordering the next step's optimizer
writes after this step's EMA reads (write-after-read). The loss is read with .item() every step,
after the EMA launch; that waits for the default stream only. STEPS steps (default 30); prints the
median step time."""
import copy
import os

import torch
import torch.nn.functional as F
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, decay = 32, 0.999
model = torchvision.models.video.r2plus1d_18(weights=None).cuda().train()
ema = copy.deepcopy(model).eval().requires_grad_(False)
params, ema_params = list(model.parameters()), list(ema.parameters())
optimizer = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.05, fused=True)
clips = [torch.randn(batch_size, 3, 16, 112, 112, device="cuda") for _ in range(2)]
labels = [torch.randint(0, 400, (batch_size,), device="cuda") for _ in range(2)]
ema_stream = torch.cuda.Stream()

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(clips[step % 2]), labels[step % 2])
    loss.backward()
    optimizer.step()                                        # WRITER: parameters, default stream
    optimizer.zero_grad(set_to_none=True)
    # BUG: missing ema_stream.wait_stream(torch.cuda.current_stream()) here.
    with torch.cuda.stream(ema_stream), torch.no_grad():
        torch._foreach_lerp_(ema_params, params, 1.0 - decay)   # READER: parameters, EMA stream
    running += loss.item()                                  # syncs the default stream only
timer.tick()
timer.report("r2plus1d_ema_side_stream")
print(f"mean loss {running / steps:.3f}")
