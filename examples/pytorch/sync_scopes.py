"""Stream vs device synchronize: the host needs only s1's result, but
torch.cuda.synchronize() also waits for the long kernel on s2."""
import torch

from streamlab_example import maybe_profiled, spin, warm_up

warm_up()
s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
with maybe_profiled():
    spin(1, s1)
    spin(5, s2)
    s1.synchronize()          # returns after s1's 1 ms kernel
    spin(1, s1)
    torch.cuda.synchronize()  # waits for s2's 5 ms kernel too
print("sync scopes done")
