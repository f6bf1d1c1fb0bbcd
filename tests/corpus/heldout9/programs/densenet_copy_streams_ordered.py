"""Batch image classification with the upload and the download each on their own stream, ordered
correctly: torchvision's densenet121 (weights=None; about 8 M parameters), bf16 autocast,
channels_last, eval mode, torch.inference_mode. 4 synthetic batches of 256 uint8 images of
3 x 224 x 224 sit in pinned host memory (as a decoder would leave them). Each step:
  - the NEXT batch is uploaded on the `upload` stream (non_blocking, pinned: a real DMA that
    overlaps this step's model), after an event that marks it ready is recorded there;
  - the default stream waits for this batch's ready event (wait_event), the tensor is marked as used
    by the default stream (record_stream: its memory came from the upload stream's pool), and it is
    converted to float and normalized on the GPU; the model runs; softmax and top-5;
  - the `download` stream waits for the default stream (wait_stream), the two small top-5 tensors
    are marked as used there (record_stream), and copied into one of two pinned host buffers
    (non_blocking), after which an event is recorded on `download`;
  - the host waits for the PREVIOUS step's download event and only then reads that step's buffer
    (double-buffered: a buffer is rewritten by the GPU only after the host has read it).
Every cross-stream use is ordered by an event or wait_stream, and every tensor used on a stream it
was not allocated on is recorded there: no race. STEPS steps (default 30); prints the median step
time and a checksum of the top-1 classes."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, classes = 256, 1000
model = torchvision.models.densenet121(weights=None, num_classes=classes).cuda().eval()
model = model.to(memory_format=torch.channels_last)
host_batches = [torch.randint(0, 256, (batch_size, 3, 224, 224), dtype=torch.uint8).pin_memory() for _ in range(4)]
host_top = [(torch.empty(batch_size, 5, pin_memory=True), torch.empty(batch_size, 5, dtype=torch.long, pin_memory=True))
            for _ in range(2)]
mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
upload, download = torch.cuda.Stream(), torch.cuda.Stream()
compute = torch.cuda.current_stream()


def start_upload(i):
    with torch.cuda.stream(upload):
        x = host_batches[i % 4].to("cuda", non_blocking=True)
        ready = torch.cuda.Event()
        ready.record(upload)
    return x, ready


timer = StepTimer()
checksum, pending = 0, None
with torch.inference_mode():
    nxt = start_upload(0)
    for step in range(steps):
        timer.tick()
        x_u8, ready = nxt
        nxt = start_upload(step + 1)                                         # overlaps this step's model
        compute.wait_event(ready)                                            # this batch has arrived
        x_u8.record_stream(compute)                                          # used here, allocated on upload
        x = ((x_u8.float() - mean) / std).contiguous(memory_format=torch.channels_last)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        probs, idx = logits.float().softmax(dim=-1).topk(5, dim=-1)
        download.wait_stream(compute)                                        # the top-5 are computed
        probs.record_stream(download)
        idx.record_stream(download)
        hp, hi = host_top[step % 2]
        with torch.cuda.stream(download):
            hp.copy_(probs, non_blocking=True)
            hi.copy_(idx, non_blocking=True)
            done = torch.cuda.Event()
            done.record(download)
        if pending is not None:                                              # the previous step's results
            prev_done, (pp, pi) = pending
            prev_done.synchronize()
            checksum += int(pi[:, 0].sum())
        pending = (done, (hp, hi))
    timer.tick()
    pending[0].synchronize()
    checksum += int(pending[1][1][:, 0].sum())
timer.report("densenet_copy_streams_ordered")
print(f"top-1 class checksum {checksum}")
