"""One small MLP block at a small batch, run three ways: eagerly, compiled with torch.compile,
and compiled with mode="reduce-overhead". Eagerly each PyTorch op is one launch and the GPU
finishes each before the host has issued the next (launch-bound); torch.compile's Inductor
fuses the element-wise ops into a few Triton kernels; "reduce-overhead" also captures the whole
call in a CUDA graph (torch's CUDA graph trees) and replays it with one launch.

Usage: compiled_step.py [--mode eager|default|reduce-overhead]   (default: reduce-overhead)

The timed steps lie in a torch.cuda.profiler.start()/stop() range, so
`streamlab-cli record --capture-range cudaProfilerApi` records them without the compilation
and the warm-up calls (in which CUDA graph trees capture the graph); recorded whole, the
trace holds those too. The result is checked against the eager block.
"""
import sys

import torch

from streamlab_example import maybe_profiled, warm_up

mode = "reduce-overhead"
args = sys.argv[1:]
if "--mode" in args and args.index("--mode") + 1 < len(args):
    mode = args[args.index("--mode") + 1]
if mode not in ("eager", "default", "reduce-overhead"):
    print(f"unknown --mode {mode}: eager, default or reduce-overhead", file=sys.stderr)
    sys.exit(2)


class Block(torch.nn.Module):
    """x + W2 gelu(W1 layernorm(x)) - a transformer's MLP half, with its element-wise tail."""

    def __init__(self, width=512, hidden=2048):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, hidden)
        self.down = torch.nn.Linear(hidden, width)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.up(self.norm(x)))
        return torch.tanh(x + 0.5 * self.down(h)) * 1.5 - 0.25


warm_up()
torch.manual_seed(0)
block = Block().cuda().eval()
x = torch.randn(16, 512, device="cuda")
steps = 20
with torch.no_grad():
    run = block if mode == "eager" else torch.compile(block, mode=mode)
    for _ in range(3):  # compiles; CUDA graph trees warm up, then capture, in these calls
        run(x)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with maybe_profiled():
        torch.cuda.profiler.start()
        start.record()
        for _ in range(steps):
            y = run(x)
        end.record()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    y = y.clone()  # a CUDA graph tree's output is overwritten by its next replay
    expected = block(x)
    error = (y - expected).abs().max().item()
print(f"{mode}: {steps} steps, {start.elapsed_time(end) / steps * 1000:.1f} us per step, "
      f"max difference from eager {error:.2e}")
if error > 1e-3:
    print("compiled result differs from the eager block", file=sys.stderr)
    sys.exit(1)
