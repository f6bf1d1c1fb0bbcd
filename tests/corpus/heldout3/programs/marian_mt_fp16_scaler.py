"""Machine-translation training of a Marian-shaped encoder-decoder (transformers' MarianMTModel, built
from a config, random weights: d_model 1024, 6 encoder and 6 decoder layers, 16 heads, FFN 4096,
vocabulary 32000 shared between encoder, decoder and LM head -- about 240 M parameters, fp32 master
weights) with mixed precision the classic way: forward under torch.autocast(float16), the loss
scaled by torch.amp.GradScaler, backward, scaler.step(optimizer) with the ordinary (foreach, not
fused) AdamW, scaler.update(). With a non-fused optimizer, scaler.step() reads the inf/NaN flag of
the unscaled gradients back to the host (.item()) to decide whether to step, so the host waits there
for the backward pass; the loss is also read with .item() for the running mean. 48 sentence pairs a
batch, 256 source and 256 target tokens, synthetic and already on the GPU (4 batches made once, used
in turn); the decoder inputs are the labels shifted right by the model. STEPS steps (default 30);
prints the median step time."""
import os

import torch
from transformers import MarianConfig, MarianMTModel

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
vocab = 32000
config = MarianConfig(vocab_size=vocab, d_model=1024, encoder_layers=6, decoder_layers=6,
                      encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
                      decoder_ffn_dim=4096, max_position_embeddings=512, pad_token_id=vocab - 1,
                      decoder_start_token_id=vocab - 1, eos_token_id=0, dropout=0.1)
model = MarianMTModel(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)   # foreach, not fused
scaler = torch.amp.GradScaler("cuda")
batch_size, src_len, tgt_len = 48, 256, 256
# Four synthetic batches on the GPU: source token ids and target token ids (the labels).
sources = [torch.randint(1, vocab - 1, (batch_size, src_len), device="cuda") for _ in range(4)]
targets = [torch.randint(1, vocab - 1, (batch_size, tgt_len), device="cuda") for _ in range(4)]

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(input_ids=sources[step % 4], labels=targets[step % 4]).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)                     # unscales; reads found_inf with .item(): the host waits
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()                     # the host waits for the whole step here
timer.tick()
timer.report("marian_mt_fp16_scaler")
print(f"mean loss {running / steps:.3f}; final loss scale {scaler.get_scale():.0f}")
