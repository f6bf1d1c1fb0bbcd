"""One tensor on two streams with no event between them. The notes call this an implicit
sync; it is a data race: nothing orders the reader after the writer."""
import torch

from streamlab_example import maybe_profiled, spin, warm_up

warm_up()
s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
t = torch.zeros(1 << 20, device="cuda")
torch.cuda.synchronize()
with maybe_profiled():
    with torch.cuda.stream(s1):
        spin(1)
        t.add_(1)          # writer on s1
    with torch.cuda.stream(s2):
        u = t * 2          # reader on s2: may see 0 or 1
    torch.cuda.synchronize()
print("two streams, one tensor: u[0] =", float(u[0]))
