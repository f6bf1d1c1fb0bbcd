"""Names a program gives its own code: NVTX ranges (torch.cuda.nvtx.range) around a step and
around the line that reads its loss back with .item(). A recording has no PyTorch ops and no
Python frames, so these names are what `explain` can say a host call was made inside:
"Made inside step > read loss." (a torch.profiler trace taken with with_stack=True names the
function instead)."""
import torch

from streamlab_example import maybe_profiled, warm_up

warm_up()
x = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()


def step():
    with torch.cuda.nvtx.range("step"):
        y = x @ x
        with torch.cuda.nvtx.range("read loss"):
            return y.sum().item()  # a D2H copy and a wait for it: a host sync


with maybe_profiled():
    for _ in range(3):
        step()
print("nvtx ranges done")
