"""A short loop with a real missing wait: 8 iterations, each copying a 64 MB batch from pinned
memory on a side stream (non_blocking) into a device buffer, then a 4096^3 matmul on the default
stream that reads that buffer, with NO wait between the two streams (a prefetch whose
wait_stream was forgotten). The matmul may read the buffer before the copy lands: the program
checks each result against the host and prints how many were wrong. Each iteration ends with
.item() on the result, so the steps are milliseconds long and host-paced.
RACE=0 adds the missing torch.cuda.current_stream().wait_stream(copy_stream)."""
import os
import time

import torch

from step_timer import StepTimer

race = os.environ.get("RACE", "1") != "0"
torch.manual_seed(0)
n = 4096
copy_stream = torch.cuda.Stream()
weights = torch.randn(n, n, device="cuda")
device_batch = torch.empty(n, n, device="cuda")
host_batches = [torch.full((n, n), float(k + 1)).pin_memory() for k in range(8)]
expected = [(weights.sum(dim=0) * (k + 1) * n).double() for k in range(8)]
torch.cuda.synchronize()
timer = StepTimer(skip=2)
wrong = 0
for k in range(8):
    timer.tick()
    # Make the buffer stale first, so that a read before the copy lands shows.
    device_batch.zero_()
    copy_stream.wait_stream(torch.cuda.current_stream())        # the zeroing before the copy
    with torch.cuda.stream(copy_stream):
        device_batch.copy_(host_batches[k], non_blocking=True)  # line 32: the copy (writes device_batch)
    if not race:
        torch.cuda.current_stream().wait_stream(copy_stream)
    out = device_batch @ weights                                 # line 35: the read (matmul on the default stream)
    total = out.sum().item()                                     # the host waits for the result
    if abs(total - expected[k].sum().item()) > 1e-3 * abs(expected[k].sum().item()):
        wrong += 1
timer.tick()
timer.report("short_loop_race")
print(f"{wrong} of 8 results wrong")
