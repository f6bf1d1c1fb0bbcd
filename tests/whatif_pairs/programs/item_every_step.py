# A training loop that prints its loss every step with loss.item(), which waits for the GPU to
# finish the step. Fixed: the loss is copied into pinned memory without waiting (non_blocking)
# and printed from there every 10 steps, a step or so late.
import torch

from common import FIXED, STEPS, mlp, step_range, train_step

model = mlp()
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(1024, 2048, device="cuda")
y = torch.randn(1024, 2048, device="cuda")
seen = torch.zeros((), pin_memory=True)
for step in range(STEPS):
    with step_range():
        loss = train_step(model, opt, x, y)
        if not FIXED:
            print(step, loss.item())
        else:
            seen.copy_(loss.detach(), non_blocking=True)
            if step % 10 == 9:
                print(step, float(seen))
torch.cuda.synchronize()
