"""Zero-shot image-text scoring with a CLIP model whose two towers run on two streams -- with the
wait in the wrong place. transformers' CLIPModel built from a CLIPConfig with random weights
(ViT-B/16 image tower: 224 x 224, patch 16, hidden 768, 12 layers; text tower: 77 tokens, hidden 512,
12 layers; projection 512 -- about 150 M parameters), bf16 autocast, torch.inference_mode. Each step
scores 512 images against 512 captions (4 synthetic batches of each, made on the GPU before the loop
and synchronized). The text tower runs on the default stream (lines 45-46); to overlap the much
longer image tower with it, that one runs on a side stream (lines 47-49); then the default stream
multiplies the two embeddings (line 50). BUG: the default stream is made to wait for the side stream
only at line 51, AFTER the matrix product of line 50 has been queued -- so nothing orders the
product's read of `img` after the side stream's write of it (line 49): a read-after-write race every
step. The product waits only for the short text tower, so it can run while the image tower is still
computing and read a stale `img`. (The wait at line 51 still orders the top-k and its copy to the
host, so the host, which waits for that copy at line 52, never runs more than one step ahead.)
STEPS steps (default 30); prints the median step time."""
import os

import torch
from transformers import CLIPConfig, CLIPModel

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
batch_size, seq_len, vocab = 512, 77, 49408
config = CLIPConfig(
    text_config=dict(vocab_size=vocab, hidden_size=512, intermediate_size=2048, num_hidden_layers=12,
                     num_attention_heads=8, max_position_embeddings=seq_len),
    vision_config=dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12,
                       image_size=224, patch_size=16),
    projection_dim=512)
model = CLIPModel(config).cuda().eval()
images = [torch.randn(batch_size, 3, 224, 224, device="cuda") for _ in range(4)]
captions = [torch.randint(1, vocab - 2, (batch_size, seq_len), device="cuda") for _ in range(4)]
for c in captions:
    c[:, -1] = vocab - 1                                                # end-of-text token: the pooled position
scale = model.logit_scale.detach().exp()
side = torch.cuda.Stream()
torch.cuda.synchronize()                                                # inputs ready before the loop

timer = StepTimer()
hits = 0
with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
    for step in range(steps):
        timer.tick()
        txt_emb = model.text_projection(model.text_model(input_ids=captions[step % 4]).pooler_output)
        txt = txt_emb / txt_emb.norm(dim=-1, keepdim=True)
        with torch.cuda.stream(side):                                   # image tower on the side stream
            img_emb = model.visual_projection(model.vision_model(pixel_values=images[step % 4]).pooler_output)
            img = img_emb / img_emb.norm(dim=-1, keepdim=True)          # writes img (side stream)
        scores = scale * txt @ img.t()                                  # reads img (default stream): no wait yet
        torch.cuda.current_stream().wait_stream(side)                   # too late: orders only what follows
        best = scores.topk(5, dim=-1).indices.cpu()                     # host waits for the default stream
        hits += int((best[:, 0] == torch.arange(batch_size)).sum())
    timer.tick()
timer.report("clip_two_tower_late_wait")
print(f"top-1 diagonal hits {hits} of {steps * batch_size}")
