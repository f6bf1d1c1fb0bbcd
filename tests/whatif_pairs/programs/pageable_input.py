# Each step copies a 64 MB input from pageable host memory, which the host stages through the
# driver's buffer and waits for. Fixed: the input lives in pinned memory, copied non_blocking.
import torch

from common import FIXED, STEPS, mlp, step_range, train_step

model = mlp(width=2048, depth=2)
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
host = torch.randn(8192, 2048)  # 64 MB
if FIXED:
    host = host.pin_memory()
y = torch.randn(8192, 2048, device="cuda")
for step in range(STEPS):
    with step_range():
        x = host.to("cuda", non_blocking=FIXED)
        loss = train_step(model, opt, x, y)
        if step % 10 == 9:
            print(step, loss.item())
torch.cuda.synchronize()
