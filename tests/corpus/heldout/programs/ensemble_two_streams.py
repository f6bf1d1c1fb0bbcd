"""Ensemble inference on two CUDA streams, written the way PyTorch's stream semantics ask for: two
torchvision classifiers (ResNet-18 and MobileNetV3-Large, random weights, fp16, channels_last,
eval) score the same batch concurrently, each on its own side stream; the batch is copied from
pinned host memory on a third (copy) stream. Every cross-stream use is ordered and every
cross-stream tensor is marked:
  - both model streams wait on an event recorded after the copy (wait_event);
  - the input is marked with record_stream for both model streams, their outputs for the main one;
  - the main stream waits for both model streams (wait_stream) before averaging the probabilities;
  - the top-1 ids come back with .to("cpu", non_blocking=True) (a pinned tensor) followed by an
    event; the host reads the previous batch's ids only after that batch's event.synchronize().
So the host stays one batch ahead of the GPU. 512 images a batch, STEPS batches (default 40);
prints the median step time (in steady state the host's per-step time is the GPU's)."""
import os

import torch
import torchvision

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)


def prepare(model):
    return model.cuda().half().eval().to(memory_format=torch.channels_last)


model_a = prepare(torchvision.models.resnet18(weights=None))
model_b = prepare(torchvision.models.mobilenet_v3_large(weights=None))
copy_stream, stream_a, stream_b = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
main = torch.cuda.current_stream()
# Four pinned input batches (already decoded and resized), used in turn: 512 x 3 x 224 x 224 fp16.
host_batches = [torch.randn(512, 3, 224, 224).half().pin_memory() for _ in range(4)]

timer = StepTimer()
pending = None          # (ids on the host, event) of the batch before
counts = torch.zeros(1000, dtype=torch.long)
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        with torch.cuda.stream(copy_stream):
            x = host_batches[step % 4].to("cuda", non_blocking=True).contiguous(memory_format=torch.channels_last)
            copied = torch.cuda.Event()
            copied.record(copy_stream)
        stream_a.wait_event(copied)
        stream_b.wait_event(copied)
        x.record_stream(stream_a)
        x.record_stream(stream_b)
        with torch.cuda.stream(stream_a):
            probs_a = model_a(x).float().softmax(dim=1)
        with torch.cuda.stream(stream_b):
            probs_b = model_b(x).float().softmax(dim=1)
        main.wait_stream(stream_a)
        main.wait_stream(stream_b)
        probs_a.record_stream(main)
        probs_b.record_stream(main)
        ids = ((probs_a + probs_b) / 2).argmax(dim=1).to("cpu", non_blocking=True)
        done = torch.cuda.Event()
        done.record(main)
        if pending is not None:
            prev_ids, prev_done = pending
            prev_done.synchronize()                      # the host waits for the batch before
            counts += torch.bincount(prev_ids, minlength=1000)
        pending = (ids, done)
    pending[1].synchronize()
    counts += torch.bincount(pending[0], minlength=1000)
timer.tick()
timer.report("ensemble_two_streams")
print(f"{int(counts.sum())} images scored")
