"""Sentence-embedding export for a vector index, with the export copy on its own stream -- and the
wait forgotten. transformers' MPNetModel built from an MPNetConfig with random weights (the
mpnet-base shape: hidden 768, 12 layers, 12 heads, FFN 3072, relative position buckets 32, vocabulary
30527 -- about 110 M parameters), bf16 autocast, torch.inference_mode. Each step embeds 512 sentences
of 128 token ids (4 synthetic batches with their attention masks, made on the GPU before the loop
and synchronized): the encoder (line 46), masked mean pooling (line 47), and an in-place L2
normalization (line 48) on the default stream. The embeddings are then copied into a pinned host
buffer on the `export` stream (line 50), so that the copy can overlap the next batch, and an event
recorded there tells the host when the copy is done (lines 51-52). BUG: nothing makes the export
stream wait for the default stream (export.wait_stream(torch.cuda.current_stream()) is missing
before line 50), so the copy's read of `emb` is unordered with the normalization's write of it
(line 48) -- and the encoder, which the host has only queued, is still running when the copy
starts. The host counts the step's real tokens (line 53: an .item() that waits for the default
stream), then waits for the export event and adds the exported vectors to its index (lines 54-55).
Each step's embeddings are also kept on the GPU so that, after the loop, the program checks how
many steps' exported vectors differ from them. STEPS steps (default 30); prints the median step
time and that count."""
import os

import torch
from transformers import MPNetConfig, MPNetModel

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, seq_len, vocab, dim = 512, 128, 30527, 768
config = MPNetConfig(vocab_size=vocab, hidden_size=dim, num_hidden_layers=12, num_attention_heads=12,
                     intermediate_size=3072, max_position_embeddings=514, relative_attention_num_buckets=32)
model = MPNetModel(config, add_pooling_layer=False).cuda().eval()
ids = [torch.randint(5, vocab, (batch_size, seq_len), device="cuda") for _ in range(4)]
masks = [(torch.arange(seq_len, device="cuda")[None, :] < torch.randint(16, seq_len + 1, (batch_size, 1), device="cuda")).long()
         for _ in range(4)]
host_emb = torch.empty(steps, batch_size, dim, pin_memory=True)
index = torch.zeros(dim)
export = torch.cuda.Stream()
torch.cuda.synchronize()                                                # inputs ready before the loop

timer = StepTimer()
kept, tokens = [], 0
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        mask = masks[step % 4]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            hidden = model(input_ids=ids[step % 4], attention_mask=mask).last_hidden_state
        emb = (hidden.float() * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        emb.div_(emb.norm(dim=-1, keepdim=True))                        # writes emb (default stream)
        with torch.cuda.stream(export):                                 # BUG: no export.wait_stream(...)
            host_emb[step].copy_(emb, non_blocking=True)                # reads emb (export stream)
            exported = torch.cuda.Event()
            exported.record(export)
        tokens += int(mask.sum())                                       # host waits for the default stream
        exported.synchronize()
        index += host_emb[step].sum(0)                                  # the host uses the exported vectors
        kept.append(emb)
    timer.tick()
timer.report("mpnet_embed_export_nowait")
torch.cuda.synchronize()
bad = sum(not torch.equal(host_emb[k], kept[k].cpu()) for k in range(steps))
print(f"{tokens} tokens; exported embeddings differing from the GPU's: {bad} of {steps} steps")
