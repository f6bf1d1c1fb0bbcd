"""Copy/compute overlap with a prefetch stream, as a data loader's prefetcher does: while the
main stream computes on batch i, a side stream copies batch i+1 from pinned memory
(non_blocking). Two lines make it correct:
  - the main stream waits for the copy stream before it uses a batch (wait_stream);
  - the batch, allocated by the copy stream, is marked as used on the main stream
    (record_stream), so its block is not handed to the next copy while still being read.

--without-wait drops the wait: the main stream may compute on a batch the copy is still
writing. StreamLab's recording reports it as a possible race, a warning since the copy is known
to write there. --without-record-stream drops the mark instead.
"""
import sys

import torch

from streamlab_example import maybe_profiled, spin, warm_up

wait = "--without-wait" not in sys.argv[1:]
mark = "--without-record-stream" not in sys.argv[1:]
steps = 4
warm_up()
copy_stream = torch.cuda.Stream()
main = torch.cuda.current_stream()
pinned = [torch.full((4 << 20,), float(i)).pin_memory() for i in range(steps)]  # 16 MB each
weights = torch.randn(1024, 1024, device="cuda")


def load(i):
    with torch.cuda.stream(copy_stream):
        return pinned[i].to("cuda", non_blocking=True)


torch.cuda.synchronize()
total = torch.zeros((), device="cuda")
with maybe_profiled():
    next_batch = load(0)
    for i in range(steps):
        if wait:
            main.wait_stream(copy_stream)  # the copy of batch i is done before it is used
        batch = next_batch
        if mark:
            batch.record_stream(main)  # keep its block until the main stream is done with it
        if i + 1 < steps:
            next_batch = load(i + 1)  # overlaps the compute below
        spin(1)  # stands for the model's forward and backward
        total += (batch.view(-1, 1024) @ weights).relu().sum()
    torch.cuda.synchronize()
print("prefetch", "with" if wait else "without", "wait_stream,", "with" if mark else "without",
      "record_stream:", float(total))
