"""Knowledge distillation with a frozen teacher run on a side stream "to overlap it with the
student", and a bug. Teacher and student are the same 4-layer MLP shape (4096 -> 4096 -> 4096 ->
4096 -> 8192 classes, GELU, about 84 M parameters, fp32 weights, bf16 autocast); the teacher is a
frozen copy made once. Each step: the side stream first waits for the default stream (correct:
the inputs are ready), then computes the teacher's soft targets (line 40: softmax of the teacher's
logits / tau) on the side stream; the default stream runs the student forward and then reads the
soft targets in the KL-divergence loss (line 44) -- with NO torch.cuda.current_stream()
.wait_stream(side), no event, nothing ordering the side stream's write of `soft` before the default
stream's read of it: a read-after-write race every step (the loss may use a partly written or
stale `soft`; backward reads it again). Batch 8192 rows a step, synthetic, already on the GPU (4
batches made once). Fused AdamW; the loss is read with .item() each step (that synchronizes the
default stream only). STEPS steps (default 30); prints the median step time."""
import copy
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
dim, classes, batch_size, tau = 4096, 8192, 8192, 2.0
student = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim), nn.GELU(),
                        nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, classes)).cuda()
teacher = copy.deepcopy(student).eval().requires_grad_(False)
optimizer = torch.optim.AdamW(student.parameters(), lr=1e-4, fused=True)
inputs = [torch.randn(batch_size, dim, device="cuda") for _ in range(4)]
side = torch.cuda.Stream()

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    x = inputs[step % 4]
    side.wait_stream(torch.cuda.current_stream())     # correct: x and the teacher are ready
    with torch.cuda.stream(side), torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        t_logits = teacher(x)
        soft = torch.softmax(t_logits.float() / tau, dim=-1)   # WRITER: side stream, line 40
    # BUG: missing torch.cuda.current_stream().wait_stream(side) here.
    with torch.autocast("cuda", dtype=torch.bfloat16):
        s_logits = student(x)
    loss = F.kl_div(F.log_softmax(s_logits.float() / tau, dim=-1), soft, reduction="batchmean") * tau * tau
    loss.backward()                                    # (reads `soft` again in kl_div's backward)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()
timer.tick()
timer.report("distill_teacher_stream_race")
print(f"mean loss {running / steps:.4f}")
