"""Sequence-to-sequence denoising pre-training of a wide, shallow BART (transformers'
BartForConditionalGeneration built from a BartConfig, random weights: d_model 1024 as in
bart-large, 4 encoder and 4 decoder layers, 16 heads, FFN 4096, GELU, learned positions, vocabulary
32000 with the LM head tied to the shared embedding -- about 152 M parameters; the config's default
dropout of 0.1 stays on) in bf16 autocast, with a fused AdamW. 64 documents a batch: 1024 corrupted
source tokens in, 256 target tokens out (the model shifts the labels right to make the decoder's
input), synthetic and already on the GPU (3 batches made once, used in turn), no padding, so no
attention mask is passed. The loss is read with .item() every step, as a training loop that logs
it would. STEPS steps (default 30); prints the median step time."""
import os

import torch
from transformers import BartConfig, BartForConditionalGeneration

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
vocab, batch_size, src_len, tgt_len = 32000, 64, 1024, 256
config = BartConfig(vocab_size=vocab, d_model=1024, encoder_layers=4, decoder_layers=4,
                    encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
                    decoder_ffn_dim=4096, max_position_embeddings=1024, use_cache=False)
model = BartForConditionalGeneration(config).cuda()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, weight_decay=0.01, fused=True)
batches = [(torch.randint(4, vocab, (batch_size, src_len), device="cuda"),
            torch.randint(4, vocab, (batch_size, tgt_len), device="cuda")) for _ in range(3)]

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    source, target = batches[step % 3]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=source, labels=target).loss   # encoder 64 x 1024, decoder 64 x 256
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    running += loss.item()                                   # the host waits for the step here
timer.tick()
timer.report("bart_denoise_bf16")
print(f"mean loss {running / steps:.3f}")
