"""Feature export for an audio data set: each step, a batch of 32 synthetic 30-second clips at 16 kHz
(480000 float32 samples each, resident on the GPU, 4 batches made once and used in turn) goes
through torch.stft (cuFFT: Hann window 1024, hop 160, 3001 frames x 513 bins) and the power
spectrogram's log (log1p(|X|^2)), and the whole float32 result -- 32 x 513 x 3001 x 4 bytes =
197 MB -- is written back to the host, into one page-locked buffer made once with
torch.empty(..., pin_memory=True), with copy_(non_blocking=True) on the default stream (a true
asynchronous device-to-host DMA, since the destination is pinned). The host then waits for that copy
(torch.cuda.current_stream().synchronize()) before it "saves" the batch (sums one float of it).
The GPU work before the copy is small: the STFT is about 32 x 3001 FFTs of 1024 points (~5 GFLOP)
plus a few elementwise passes over 200-400 MB at H200 bandwidth (~0.3 ms each); the copy alone
takes ~4 ms at the ~50 GB/s of a PCIe 5 x16 link, so the device-to-host copy bounds each step.
STEPS steps (default 40); prints the median step time."""
import os

import torch

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
batch_size, samples, n_fft, hop = 32, 480000, 1024, 160
clips = [torch.randn(batch_size, samples, device="cuda") * 0.1 for _ in range(4)]
window = torch.hann_window(n_fft, device="cuda")
frames = samples // hop + 1
host_out = torch.empty(batch_size, n_fft // 2 + 1, frames, pin_memory=True)   # pinned destination

timer = StepTimer()
checksum = 0.0
for step in range(steps):
    timer.tick()
    spec = torch.stft(clips[step % 4], n_fft, hop_length=hop, window=window, return_complex=True)
    feats = torch.log1p(spec.real.square() + spec.imag.square())
    host_out.copy_(feats, non_blocking=True)             # device-to-host DMA into pinned memory
    torch.cuda.current_stream().synchronize()             # the host waits for the copy
    checksum += float(host_out[step % batch_size, 0, 0])  # "saving" reads the host copy
timer.tick()
timer.report("stft_export_pinned")
print(f"exported {steps * batch_size} clips, {tuple(host_out.shape)} each batch; checksum {checksum:.3f}")
