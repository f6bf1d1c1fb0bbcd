# A loop that builds each batch on the CPU just before the step, while the GPU has nothing
# queued. Fixed: the batches are built before the loop (what a DataLoader's workers give).
import torch

from common import FIXED, STEPS, mlp, step_range, train_step


def make_batch(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(512, 2048, generator=g)
    for _ in range(6):  # CPU-side preprocessing
        x = torch.tanh(x * 1.01 + 0.01)
    return x


model = mlp()
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
y = torch.randn(512, 2048, device="cuda")
ready = [make_batch(s) for s in range(4)] if FIXED else None
for step in range(STEPS):
    with step_range():
        xb = ready[step % 4] if FIXED else make_batch(step % 4)
        loss = train_step(model, opt, xb.cuda(), y)
        if step % 10 == 9:
            print(step, loss.item())
torch.cuda.synchronize()
