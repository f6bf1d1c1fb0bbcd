"""Speech-recognition training of a wav2vec 2.0 model with a CTC head, in bf16 autocast:
transformers' Wav2Vec2ForCTC built from a Wav2Vec2Config with random weights (the base shape: a
7-layer convolutional feature encoder of 512 channels over the raw 16 kHz waveform, group norm on its
first layer, a 768-wide 12-layer transformer with a convolutional position embedding, a 32-symbol
vocabulary -- about 94 M parameters). 64 utterances of 10 s (160,000 samples, 499 encoder frames)
a step, already on the GPU (3 batches made once, used in turn), each with a transcript of 80-120
symbols padded with -100. The model's own training path adds, inside the forward: SpecAugment time
masks drawn with NumPy on the host and copied to the GPU (mask_time_prob 0.05, the config's
default), a check that no label is out of the vocabulary (labels.max() read by the host), the
masked_select of the labels, and the CTC loss (computed in fp32 by autocast's rules). AdamW (the
default foreach implementation). One stream; the loss is summed on the GPU and read once at the end.
STEPS steps (default 25); prints the median step time."""
import os

import torch
from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "25"))
torch.manual_seed(0)
batch_size, samples, vocab = 64, 160000, 32
config = Wav2Vec2Config(vocab_size=vocab, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                        intermediate_size=3072, feat_extract_norm="group", do_stable_layer_norm=False,
                        mask_time_prob=0.05, layerdrop=0.0, hidden_dropout=0.1, activation_dropout=0.0,
                        attention_dropout=0.1, feat_proj_dropout=0.0, final_dropout=0.0,
                        ctc_loss_reduction="mean", pad_token_id=0)
model = Wav2Vec2ForCTC(config).cuda().train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)


def make_batch():
    audio = torch.randn(batch_size, samples, device="cuda")
    labels = torch.full((batch_size, 120), -100, dtype=torch.long, device="cuda")
    for i in range(batch_size):
        n = int(torch.randint(80, 121, ()))
        labels[i, :n] = torch.randint(1, vocab, (n,), device="cuda")
    return audio, labels


batches = [make_batch() for _ in range(3)]

timer = StepTimer()
total = torch.zeros((), device="cuda")
for step in range(steps):
    timer.tick()
    audio, labels = batches[step % 3]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_values=audio, labels=labels).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    total += loss.detach()
timer.tick()
timer.report("wav2vec2_ctc_train_bf16")
print(f"mean loss {total.item() / steps:.4f}")
