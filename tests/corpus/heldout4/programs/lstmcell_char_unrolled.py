"""Character-level language-model training with a 2-layer LSTM written as two torch.nn.LSTMCell
modules unrolled in a Python for loop over time (the way an LSTM is written when something must
happen between time steps -- here a residual add and dropout between the layers), instead of the
fused cuDNN torch.nn.LSTM. Batch 32, hidden 256, an embedding of 96 characters, 64 time steps, fp32,
synthetic text already on the GPU; the output head is applied once to the stacked outputs. Adam
(foreach). Every time step costs some 12 small eager ops forward (per cell: one addmm-like gate
matmul pair, the gate nonlinearities, the state update; then add and dropout) and about twice that
in the backward pass, each on a 32 x 1024 gate tensor at most: a few microseconds of GPU each, less
than the host takes to launch it through PyTorch's dispatcher and autograd. The loss is read with
.item() every step. STEPS steps (default 30); prints the median step time."""
import os

import torch
from torch import nn

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
chars, hidden, batch_size, seq_len = 96, 256, 32, 64


class UnrolledLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(chars, hidden)
        self.cell1 = nn.LSTMCell(hidden, hidden)
        self.cell2 = nn.LSTMCell(hidden, hidden)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(hidden, chars)

    def forward(self, ids):
        x = self.embed(ids)                                     # (batch, time, hidden)
        h1 = c1 = h2 = c2 = x.new_zeros(ids.shape[0], hidden)
        outs = []
        for t in range(ids.shape[1]):                           # the Python time loop
            h1, c1 = self.cell1(x[:, t], (h1, c1))
            h2, c2 = self.cell2(self.drop(h1), (h2, c2))
            outs.append(h2 + h1)
        return self.head(torch.stack(outs, 1))


model = UnrolledLSTM().cuda().train()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
text = torch.randint(0, chars, (8, batch_size, seq_len + 1), device="cuda")

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    seq = text[step % 8]
    logits = model(seq[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, chars), seq[:, 1:].reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    running += loss.item()                     # the host waits for the step's GPU work
timer.tick()
timer.report("lstmcell_char_unrolled")
print(f"mean loss {running / steps:.3f}")
