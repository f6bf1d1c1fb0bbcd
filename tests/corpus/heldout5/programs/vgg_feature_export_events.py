"""Feature export with a correct two-stream pipeline. torchvision's VGG11-BN convolutional trunk
(model.features, random weights, weights=None, eval, torch.inference_mode, bf16 weights,
channels_last) turns 128 images of 3 x 224 x 224 (synthetic, already on the GPU, 2 batches used in
turn) into 128 x 512 x 7 x 7 feature maps (6.4 MB in bf16) each step; the features are copied to
the host on a separate copy stream so that the device-to-host copy overlaps the next step's
convolutions. The ordering is done right, with events: the default stream records `ready` after
the features are made and the copy stream waits on it (line 44) before copying (line 46); the copy goes
into one of two pinned host slots (double buffering), and the copy stream records that slot's
`copied` event after it; the host waits on `copied` (line 39) before it reads a slot or reuses it
two steps later; feats.record_stream(copy_stream) tells the caching allocator that the copy
stream still uses the feature tensor. No race anywhere, no host sync on the default stream in the
loop. STEPS steps (default 40); prints the median step time."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size = 128
trunk = torchvision.models.vgg11_bn(weights=None).features.cuda().eval()
trunk = trunk.to(dtype=torch.bfloat16, memory_format=torch.channels_last)
images = [torch.randn(batch_size, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
          .contiguous(memory_format=torch.channels_last) for _ in range(2)]
copy_stream = torch.cuda.Stream()
host_slots = [torch.empty(batch_size, 512 * 7 * 7, dtype=torch.bfloat16).pin_memory() for _ in range(2)]
copied = [torch.cuda.Event() for _ in range(2)]
in_use = [False, False]

timer = StepTimer()
checksum = 0.0
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        slot = step % 2
        if in_use[slot]:
            copied[slot].synchronize()                        # the copy two steps ago has landed
            checksum += float(host_slots[slot][:, :16].float().sum())   # consume it on the host
        feats = trunk(images[step % 2]).flatten(1)            # [128, 25088] bf16, default stream
        ready = torch.cuda.Event()
        ready.record()                                        # on the default stream, after feats
        copy_stream.wait_event(ready)
        with torch.cuda.stream(copy_stream):
            host_slots[slot].copy_(feats, non_blocking=True)  # D2H into pinned memory, copy stream
            copied[slot].record()                             # on the copy stream, after the copy
        feats.record_stream(copy_stream)
        in_use[slot] = True
timer.tick()
torch.cuda.synchronize()
for slot in range(2):
    if in_use[slot]:
        checksum += float(host_slots[slot][:, :16].float().sum())
timer.report("vgg_feature_export_events")
print(f"checksum {checksum:.3f}")
