"""Two-stream inference replayed from one CUDA graph: the model's two branches (a wide MLP on the
main stream, a second MLP on a side stream, joined by events: fork with wait_stream, join back)
are captured once with torch.cuda.graph, and each of the 40 iterations is one g.replay() plus a
copy of the next input into the graph's static input. Nothing syncs inside the loop but the last
iteration's read of the output. The step is the GPU's time for one replay (compute-bound);
timed as the window between two synchronize() calls divided by the iterations."""
import time

import torch

torch.manual_seed(0)
width, batch, depth = 4096, 1024, 6


def mlp():
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).cuda().half().eval()


main_branch, side_branch = mlp(), mlp()
side = torch.cuda.Stream()
static_in = torch.randn(batch, width, device="cuda", dtype=torch.half)
inputs = [torch.randn(batch, width, device="cuda", dtype=torch.half) for _ in range(4)]


def forward(x):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        b = side_branch(x)
    a = main_branch(x)
    torch.cuda.current_stream().wait_stream(side)
    return a + b


with torch.no_grad():
    # Warm up on a side stream, as torch.cuda.graph's documentation asks.
    warm = torch.cuda.Stream()
    warm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warm):
        for _ in range(3):
            forward(static_in)
    torch.cuda.current_stream().wait_stream(warm)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = forward(static_in)
    graph.replay()  # the first launch uploads the graph: out of the timed window
    static_out.float().sum().item()  # and the read after the loop loads its kernels once, here
    torch.cuda.synchronize()
    steps = 40
    t0 = time.perf_counter()
    for k in range(steps):
        static_in.copy_(inputs[k % 4])
        graph.replay()
    last = static_out.float().sum().item()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
print(f"graph_replay_inference: {steps} steps timed; median step {elapsed / steps * 1e3:.3f} ms "
      f"(window between two synchronize() calls / steps); last {last:.1f}")
