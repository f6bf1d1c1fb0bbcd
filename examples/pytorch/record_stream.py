"""A tensor allocated on the main stream and used on a side stream: record_stream tells the
caching allocator not to reuse its block until the side stream's work is done.

Run with --without-record-stream to see the hazard it prevents: x's block goes back to the
main stream's pool at `del x`, and `z` gets it at once while the side stream still reads x.
StreamLab's recording reports that as a possible race at x's address."""
import sys

import torch

from streamlab_example import maybe_profiled, spin, warm_up

keep_order = "--without-record-stream" not in sys.argv[1:]
warm_up()
side = torch.cuda.Stream()
with maybe_profiled():
    x = torch.ones(1 << 20, device="cuda")
    side.wait_stream(torch.cuda.current_stream())  # x is ready before side reads it
    with torch.cuda.stream(side):
        spin(2)
        y = x * 3
    if keep_order:
        x.record_stream(side)   # without this, x's block could be reused at once
    del x
    z = torch.zeros(1 << 20, device="cuda")  # may reuse x's block only after side is done
    torch.cuda.current_stream().wait_stream(side)
    total = (y + z).sum()
    torch.cuda.synchronize()
print("record_stream done" if keep_order else "record_stream left out", float(total))
