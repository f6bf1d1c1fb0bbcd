"""Inference of a model too big to keep on the GPU, with its weights streamed in layer by layer --
done right. Eight 8192 x 8192 bf16 layers (128 MiB each, 1 GiB together) live in pinned host
memory. Each step runs 32768 tokens (32768 x 8192 bf16 activations, made once on the GPU) through
all eight: x = gelu(x @ W_i^T). While layer i computes on the default stream, layer i+1's weights
are copied in on a side stream (fetch, line 33: a non_blocking copy from pinned memory, so a real
asynchronous DMA), and an event is recorded after the copy (line 34). Before layer i uses its
weights the default stream waits on that event (line 46: read-after-write ordered), and
w.record_stream(current stream) (line 47) tells the caching allocator that the weights, allocated
on the side stream, are also used on the default stream, so their memory is not handed to a later
fetch before layer i's GEMM has read it (write-after-read ordered). The step ends with a checksum
read with .item() (line 51). One GEMM is 2 x 32768 x 8192 x 8192 = 4.4 TFLOP; one copy is 134 MB.
STEPS steps (default 40); prints the median step time."""
import os

import torch
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
layers, width, tokens = 8, 8192, 32768
host_weights = [(torch.randn(width, width, dtype=torch.bfloat16) * width ** -0.5).pin_memory()
                for _ in range(layers)]
x0 = torch.randn(tokens, width, device="cuda", dtype=torch.bfloat16)
copy_stream = torch.cuda.Stream()
compute = torch.cuda.current_stream()


def fetch(i):
    """Layer i's weights onto the GPU, on the copy stream; returns them and their ready event."""
    with torch.cuda.stream(copy_stream):
        w = host_weights[i].to("cuda", non_blocking=True)
        ready = copy_stream.record_event()
    return w, ready


timer = StepTimer()
checksums = []
for step in range(steps):
    timer.tick()
    x = x0
    nxt = fetch(0)
    for i in range(layers):
        w, ready = nxt
        compute.wait_event(ready)              # the weights have landed
        w.record_stream(compute)               # ... and are used on this stream too
        if i + 1 < layers:
            nxt = fetch(i + 1)                 # overlaps this layer's GEMM
        x = F.gelu(x @ w.t())
    checksums.append(x[:, :64].float().abs().mean().item())
timer.tick()
timer.report("stream_weights_pinned_prefetch")
print(f"checksum {checksums[-1]:.5f}")
