"""Batch image-classification serving with torchvision's RegNetY-1.6GF (random weights, eval,
torch.inference_mode, weights cast to bfloat16, channels_last), batch 512 of 3 x 224 x 224 uint8
images, with a hand-made "overlapped" input path that has a bug. The requests sit in pinned host
memory (a pool of 4 uint8 batches, 77 MB each, made once); each step copies the next batch into
ONE persistent device buffer (gpu_images) with copy_(non_blocking=True) on a side stream
(copy_stream), so the copy "can overlap" -- and then the default stream reads gpu_images (the
uint8-to-float conversion and normalization, line 43) without waiting for the side stream: there is
no torch.cuda.current_stream().wait_stream(copy_stream), no event, nothing orders the two streams.
The copy of step k (side stream, line 41) and the normalization of step k (default stream, line
43) are unordered: the model may read a half-written batch, or the previous one. (Also, the copy of
step k+1 may overwrite the buffer while step k's normalization still reads it, though the
argmax().cpu() at the end of each step, a blocking device-to-host read, makes that second overlap
rare.) The copy is a 77 MB pinned host-to-device DMA (~1.5 ms at ~50 GB/s); the model's forward pass is
512 x 3.2 GFLOP = 1.65 TFLOP (torch.utils.flop_counter) in a few hundred kernels (grouped
convolutions, squeeze-excite), about 10 ms. STEPS steps (default 40); prints the median step time."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size = 512
model = torchvision.models.regnet_y_1_6gf(weights=None).cuda().eval()
model = model.to(dtype=torch.bfloat16, memory_format=torch.channels_last)
host_batches = [torch.randint(0, 256, (batch_size, 3, 224, 224), dtype=torch.uint8).pin_memory()
                for _ in range(4)]
gpu_images = torch.empty(batch_size, 3, 224, 224, dtype=torch.uint8, device="cuda")
mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
copy_stream = torch.cuda.Stream()

timer = StepTimer()
served = 0
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        with torch.cuda.stream(copy_stream):
            gpu_images.copy_(host_batches[step % 4], non_blocking=True)   # H2D on the side stream
        # BUG: missing torch.cuda.current_stream().wait_stream(copy_stream) here.
        x = ((gpu_images.float() - mean) / std).to(torch.bfloat16, memory_format=torch.channels_last)
        logits = model(x)
        predictions = logits.argmax(1).cpu()                 # blocking read of the default stream
        served += predictions.numel()
timer.tick()
timer.report("regnet_serve_copy_race")
print(f"served {served} images")
