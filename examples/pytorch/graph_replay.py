"""A step captured once as a CUDA graph and replayed, as torch.cuda.graphs and torch.compile's
mode="reduce-overhead" do to save launch time. The step has two branches: inside the capture a
side stream computes one half while the capture stream computes the other, and the capture
stream waits for it before the sum, which is copied into the graph's static output. Replayed,
CUDA runs the branches on streams of its own.

The replay runs on a stream of the program's own, the main stream fills the static input
before each replay and reads the static output after it. As written, each side waits for the
other (wait_stream both ways). --without-wait drops the main stream's wait for the replay: it
may read the output while the graph still writes it, and overwrite the input while the graph
still reads it. StreamLab's recording leads each replayed node back to the call that captured
it (its arguments) and rebuilds the graph's edges from the capture, so it reports those races
as warnings, while the graph's own nodes are ordered by its edges (its two branches, which
both only read x, remain a note).

--range puts the replays alone in a torch.cuda.profiler.start()/stop() range, for
`streamlab-cli record --capture-range cudaProfilerApi`: the graph is captured before the range,
and the recording still leads its replays back to that capture.
"""
import sys

import torch

from streamlab_example import maybe_profiled, warm_up

wait = "--without-wait" not in sys.argv[1:]
in_range = "--range" in sys.argv[1:]
steps = 3
warm_up()
n = 2048
x = torch.randn(n, n, device="cuda")  # the graph's static input
w1 = torch.randn(n, n, device="cuda")
w2 = torch.randn(n, n, device="cuda")
out = torch.empty(n, n, device="cuda")  # its static output
branch = torch.cuda.Stream()


def step():
    # b is allocated (and later freed) on the capturing stream, used on the branch in between:
    # under PyTorch's cudaMallocAsync backend a tensor freed on the branch after the join
    # would leave the capture unjoined.
    b = torch.empty_like(x)
    branch.wait_stream(torch.cuda.current_stream())  # fork: the branch starts after x is ready
    a = x @ w1
    with torch.cuda.stream(branch):
        torch.matmul(x, w2, out=b).relu_()
    torch.cuda.current_stream().wait_stream(branch)  # join before the sum
    out.copy_(a + b)


# Warm up on a side stream before capturing (cuBLAS picks its kernels, as PyTorch's docs ask).
warm = torch.cuda.Stream()
warm.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(warm):
    for _ in range(2):
        step()
torch.cuda.current_stream().wait_stream(warm)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    step()

inputs = [torch.randn(n, n, device="cuda") for _ in range(steps)]
replay_stream = torch.cuda.Stream()
main = torch.cuda.current_stream()
total = torch.zeros((), device="cuda")
torch.cuda.synchronize()
if in_range:
    torch.cuda.profiler.start()
with maybe_profiled():
    for i in range(steps):
        x.copy_(inputs[i])  # the next input, written on the main stream
        replay_stream.wait_stream(main)  # the replay reads x only after it is written
        with torch.cuda.stream(replay_stream):
            graph.replay()
        if wait:
            main.wait_stream(replay_stream)  # out is complete, and x free to overwrite
        total += out.sum()
    torch.cuda.synchronize()
if in_range:
    torch.cuda.profiler.stop()
print("graph replay", "with" if wait else "without", "wait_stream:", float(total))
