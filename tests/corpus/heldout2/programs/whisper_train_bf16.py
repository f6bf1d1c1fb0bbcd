"""Speech-recognition training of a Whisper-shaped encoder-decoder (transformers'
WhisperForConditionalGeneration, built from a config, random weights: d_model 1024, 8 encoder and
4 decoder layers, 16 heads, FFN 4096 -- a "distil" layout) on 30-second log-mel inputs
(80 x 3000 frames, 1500 encoder positions) with 128-token transcripts, 16 clips a batch. The
features and labels are synthetic and already on the GPU (4 batches made once, used in turn), so no
copy is in the loop. Forward under torch.autocast(bfloat16), backward, fused AdamW, and the loss
read with .item() every step for the running mean (the host waits for the whole step there).
STEPS steps (default 40); prints the median step time."""
import os

import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
config = WhisperConfig(vocab_size=51865, num_mel_bins=80, d_model=1024, encoder_layers=8, decoder_layers=4,
                       encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
                       decoder_ffn_dim=4096, max_source_positions=1500, max_target_positions=448)
model = WhisperForConditionalGeneration(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, fused=True)
batch_size, frames, text_len = 16, 3000, 128
# Four synthetic batches on the GPU: log-mel features (fp32) and transcript token ids.
features = [torch.randn(batch_size, 80, frames, device="cuda") for _ in range(4)]
labels = [torch.randint(0, 50000, (batch_size, text_len), device="cuda") for _ in range(4)]

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_features=features[step % 4], labels=labels[step % 4]).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()                    # the host waits for the whole step here
timer.tick()
timer.report("whisper_train_bf16")
print(f"mean loss {running / steps:.3f}")
