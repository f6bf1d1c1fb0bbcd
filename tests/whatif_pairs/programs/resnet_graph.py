# torchvision's ResNet-18 trained on small batches (8 images of 32x32): a step is hundreds of
# small kernels, forward on the main thread and backward on PyTorch's autograd thread, and the
# host's launches set its pace. Fixed: the whole step (forward, loss, backward, optimizer step)
# captured once into a CUDA graph after three warm-up steps on a side stream, as
# torch.cuda.graphs' documentation does for a whole network, then replayed each step. It prints
# its own steady step time ("step_us"): under the recorder a graph launch costs the host more a
# node than it does alone, so the fixed run is also timed unrecorded.
import statistics
import time

import torch
import torchvision

from common import FIXED, STEPS, step_range

torch.manual_seed(0)
model = torchvision.models.resnet18(num_classes=10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
images = torch.randn(8, 3, 32, 32, device="cuda")
labels = torch.randint(0, 10, (8,), device="cuda")


def step_fn():
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    opt.step()
    return loss


def zero_grads():
    opt.zero_grad(set_to_none=True)


if FIXED:
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            zero_grads()
            step_fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    zero_grads()  # the graph's backward then allocates the grads in its own pool
    with torch.cuda.graph(graph):
        static_loss = step_fn()
torch.cuda.synchronize()
block_began, per_step = time.perf_counter(), []
for step in range(STEPS):
    with step_range():
        if FIXED:
            graph.replay()
            loss = static_loss
        else:
            zero_grads()
            loss = step_fn()
    if step % 10 == 9:
        torch.cuda.synchronize()
        now = time.perf_counter()
        per_step.append((now - block_began) / 10)
        block_began = now
print(float(loss.item()))
print("step_us", round(statistics.median(per_step[1:]) * 1e6, 1))
