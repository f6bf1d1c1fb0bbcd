"""Event chain: s1 -> s2 -> s3 ordered on the GPU by two events; the host never blocks
until the final synchronize. Expect each stage to start when the previous one ends."""
import torch

from streamlab_example import maybe_profiled, spin, warm_up

warm_up()
s1, s2, s3 = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
e1, e2 = torch.cuda.Event(), torch.cuda.Event()
with maybe_profiled():
    spin(2, s1)           # stage 1 on s1
    e1.record(s1)         # e1 = "stage 1 done"
    s2.wait_event(e1)     # s2 waits on the GPU, the host goes on
    spin(2, s2)
    e2.record(s2)
    s3.wait_event(e2)
    spin(2, s3)
    torch.cuda.synchronize()
print("event chain done")
