"""A DistributedDataParallel training step, one process per GPU (torchrun), where one rank
can be made a straggler: with --straggler-ms N, rank 1 computes N ms longer between its
forward and backward pass (a spin kernel standing in for a slower GPU or a bigger batch).
Its gradients are ready later, so every other rank's all-reduce of each gradient bucket
waits for it inside NCCL.

  torchrun --nproc_per_node=2 examples/pytorch/ddp_straggler.py --straggler-ms 3
  streamlab-cli record --capture-range cudaProfilerApi --out ddp.json -- \\
      torchrun --nproc_per_node=2 examples/pytorch/ddp_straggler.py --straggler-ms 3

Two steps warm up (DDP builds its buckets during the first); the measured steps run between
cudaProfilerStart and cudaProfilerStop, the window `--capture-range cudaProfilerApi` records.
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from streamlab_example import require_gpu, spin

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--straggler-ms", type=float, default=0.0, help="rank 1's extra compute per step")
parser.add_argument("--steps", type=int, default=3, help="measured steps")
parser.add_argument("--width", type=int, default=2048, help="features per layer")
parser.add_argument("--layers", type=int, default=8)
parser.add_argument("--batch", type=int, default=512)
parser.add_argument("--bucket-mb", type=float, default=16.0, help="DDP's bucket_cap_mb")
args = parser.parse_args()

require_gpu()
if "RANK" not in os.environ:
    print("run it with torchrun, one process per GPU: torchrun --nproc_per_node=2 " + sys.argv[0], file=sys.stderr)
    sys.exit(2)
rank, local, world = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
if local >= torch.cuda.device_count():
    print(f"rank {rank} needs GPU {local}; this host has {torch.cuda.device_count()}", file=sys.stderr)
    sys.exit(3)
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))

torch.manual_seed(0)
layers = []
for _ in range(args.layers):
    layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
model = DistributedDataParallel(torch.nn.Sequential(*layers).cuda(), device_ids=[local],
                                bucket_cap_mb=args.bucket_mb)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(args.batch, args.width, device="cuda")


def train_step():
    loss = model(x).pow(2).mean()
    if rank == 1 and args.straggler_ms > 0:
        spin(args.straggler_ms)  # the straggler: its backward (and gradients) start later
    loss.backward()              # DDP all-reduces each bucket as its gradients are ready
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


for _ in range(2):
    train_step()
torch.cuda.synchronize()
dist.barrier()

torch.cuda.profiler.start()
began = time.perf_counter()
for _ in range(args.steps):
    train_step()
torch.cuda.synchronize()
elapsed_ms = (time.perf_counter() - began) * 1000
torch.cuda.profiler.stop()
print(f"rank {rank} of {world}: {args.steps} steps in {elapsed_ms:.2f} ms "
      f"({elapsed_ms / args.steps:.2f} ms per step, straggler {args.straggler_ms} ms on rank 1)")
dist.destroy_process_group()
