"""Training a small diffusion-style UNet denoiser (plain nn.Module: 64 -> 128 -> 256 channels over
128 x 128 -> 64 x 64 -> 32 x 32, residual blocks of GroupNorm, SiLU and 3x3 convolutions, skip
concatenations, about 2.7 M parameters) in bf16 autocast with AdamW (foreach, the default): 32 noisy
images of 3 x 128 x 128 a step, synthetic and already on the GPU, the model predicting the noise
(MSE). The activations are large (each 64-channel map at 128 x 128 is 67 MB in bf16, 134 MB where
autocast keeps GroupNorm in fp32) and the arithmetic modest. Line 14 -- left in from hunting a
memory leak -- sets PYTORCH_NO_CUDA_MEMORY_CACHING=1 before torch is imported, which turns PyTorch's
caching allocator off (documented as a debugging aid): every tensor the step makes is a cudaMalloc,
and every tensor it drops is a cudaFree, which also synchronizes the whole device. Several hundred
of each a step, many of them of tens to hundreds of megabytes. The loss is read with .item() every
step. STEPS steps (default 30); prints the median step time."""
import os

os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"   # left in from hunting a memory leak

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size = 32


class ResBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.norm2, self.conv2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return h + self.skip(x)


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Conv2d(3, 64, 3, padding=1)
        self.enc1, self.down1 = ResBlock(64, 64), nn.Conv2d(64, 128, 3, stride=2, padding=1)
        self.enc2, self.down2 = ResBlock(128, 128), nn.Conv2d(128, 256, 3, stride=2, padding=1)
        self.mid = ResBlock(256, 256)
        self.up2, self.dec2 = nn.ConvTranspose2d(256, 128, 2, stride=2), ResBlock(256, 128)
        self.up1, self.dec1 = nn.ConvTranspose2d(128, 64, 2, stride=2), ResBlock(128, 64)
        self.out = nn.Conv2d(64, 3, 3, padding=1)

    def forward(self, x):
        h1 = self.enc1(self.inp(x))                       # 128 x 128
        h2 = self.enc2(self.down1(h1))                    # 64 x 64
        h3 = self.mid(self.down2(h2))                     # 32 x 32
        d2 = self.dec2(torch.cat([self.up2(h3), h2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), h1], 1))
        return self.out(d1)


model = UNet().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
clean = [torch.rand(batch_size, 3, 128, 128, device="cuda") * 2 - 1 for _ in range(2)]
alphas = torch.linspace(0.999, 0.02, 1000, device="cuda")

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    x0 = clean[step % 2]
    t = torch.randint(0, 1000, (batch_size,), device="cuda")
    a = alphas[t].view(-1, 1, 1, 1)
    noise = torch.randn_like(x0)
    xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.mse_loss(model(xt).float(), noise)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()
timer.tick()
timer.report("unet_no_caching_allocator")
print(f"mean loss {running / steps:.4f}")
