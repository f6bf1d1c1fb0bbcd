"""The course notes' exercise: b.wait_stream(a); c.wait_stream(b) issued *before* a and b
have work, then work on c, b, a. wait_stream captures only work already submitted, so the
waits order nothing: the three kernels run together, in submission order c, b, a."""
import torch

from streamlab_example import maybe_profiled, spin, warm_up

warm_up()
a, b, c = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
with maybe_profiled():
    b.wait_stream(a)   # a has no work yet: nothing to wait for
    c.wait_stream(b)   # b has no work yet: nothing to wait for
    spin(2, c)
    spin(2, b)
    spin(2, a)
    torch.cuda.synchronize()
print("wait_stream before work done")
