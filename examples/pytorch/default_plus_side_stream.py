"""The notes' "default stream + custom stream" experiment: a GEMM on a side stream and one
on the default stream. They run back to back, but not because of an implicit sync: PyTorch's
side streams are non-blocking, and each 8192x8192 GEMM fills every SM."""
import torch

from streamlab_example import maybe_profiled, warm_up

warm_up()
side = torch.cuda.Stream()
x = torch.randn(8192, 8192, device="cuda")
y = torch.randn(8192, 8192, device="cuda")
torch.mm(x, y)  # cuBLAS handles and workspaces are created here, not in the studied part
torch.cuda.synchronize()
with maybe_profiled():
    with torch.cuda.stream(side):
        p = torch.mm(x, y)
    q = torch.mm(y, x)  # the default stream
    torch.cuda.synchronize()
print("default + side stream done", float(p[0, 0] + q[0, 0]) != 0.0)
