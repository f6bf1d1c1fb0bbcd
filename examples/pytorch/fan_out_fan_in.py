"""Fan-out / fan-in: one producer on the main stream releases three consumers on side streams
through one event; the main stream joins them back with one event each."""
import torch

from streamlab_example import maybe_profiled, spin, warm_up

warm_up()
main = torch.cuda.current_stream()
sides = [torch.cuda.Stream() for _ in range(3)]
ready = torch.cuda.Event()
with maybe_profiled():
    spin(1, main)            # producer
    ready.record(main)
    done = []
    for i, s in enumerate(sides):
        s.wait_event(ready)  # every consumer starts after the producer
        spin(1 + i, s)
        e = torch.cuda.Event()
        e.record(s)
        done.append(e)
    for e in done:
        main.wait_event(e)   # the join: main goes on after the slowest consumer
    spin(1, main)
    torch.cuda.synchronize()
print("fan-out fan-in done")
