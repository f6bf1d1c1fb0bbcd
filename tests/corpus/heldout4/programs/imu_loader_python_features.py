"""Human-activity recognition from wrist-worn accelerometer windows, trained with a small 1-D CNN
(4 Conv1d blocks, 64-256 channels, BatchNorm, global pooling, 6 classes, AdamW, fp32) whose data
comes from a torch.utils.data.DataLoader with num_workers=0: every item is produced in the main
process, inside the training loop's `for ... in loader`, by ImuWindows.__getitem__ (lines 32-47),
which in plain Python synthesizes a 3-axis 512-sample window (a sum of two sines plus noise drawn
from random.Random), removes gravity with a 32-sample moving average and computes the magnitude
channel sample by sample, then makes a 4 x 512 float tensor. That is about 512 x 4 x ~15 Python
operations an item, roughly 1-2 ms of CPU per item, and 64 items a batch: some 100 ms of Python per
step, while the GPU's work for a batch of 64 x 4 x 512 is well under a millisecond (~1 GFLOP in some
60 kernels forward and backward, plus the optimizer). The default collate stacks the items; the
batch is copied to the GPU (pageable, 512 KiB). The loss is read with .item() every step. STEPS
steps (default 25); prints the median step time."""
import math
import os
import random

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "25"))
torch.manual_seed(0)
window, classes, batch_size = 512, 6, 64


class ImuWindows(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, index):
        rng = random.Random(index)
        label = index % classes
        freq, amp = 0.5 + label * 0.4, 1.0 + 0.2 * label
        raw = [[amp * math.sin(2 * math.pi * freq * t / 50 + axis) + 0.3 * math.sin(0.1 * t)
                + rng.gauss(0.0, 0.2) + (9.81 if axis == 2 else 0.0) for t in range(window)]
               for axis in range(3)]
        feats = []
        for axis in range(3):                                   # remove gravity: moving average
            row, acc, out = raw[axis], 0.0, []
            for t in range(window):
                acc += row[t] - (row[t - 32] if t >= 32 else 0.0)
                out.append(row[t] - acc / min(t + 1, 32))
            feats.append(out)
        feats.append([math.sqrt(x * x + y * y + z * z) for x, y, z in zip(*feats)])
        return torch.tensor(feats), label


def block(cin, cout):
    return nn.Sequential(nn.Conv1d(cin, cout, 7, padding=3), nn.BatchNorm1d(cout), nn.ReLU(),
                         nn.MaxPool1d(2))


model = nn.Sequential(block(4, 64), block(64, 128), block(128, 256), block(256, 256),
                      nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(256, classes)).cuda().train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(ImuWindows(), batch_size=batch_size, shuffle=True, num_workers=0,
                    generator=torch.Generator().manual_seed(0))

timer = StepTimer()
running, done = 0.0, 0
for signals, labels in loader:                              # __getitem__ runs here, in this process
    timer.tick()
    signals, labels = signals.cuda(), labels.cuda()
    loss = nn.functional.cross_entropy(model(signals), labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    running += loss.item()                                  # the host waits for the step's GPU work
    done += 1
    if done == steps:
        break
timer.tick()
timer.report("imu_loader_python_features")
print(f"mean loss {running / done:.3f}")
