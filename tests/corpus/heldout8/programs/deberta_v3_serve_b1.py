"""Online text classification, one request at a time, in eager PyTorch: a DeBERTa-v3-base-shaped
classifier (transformers' DebertaV2ForSequenceClassification built from a DebertaV2Config with random
weights: hidden 768, 12 layers, 12 heads, FFN 3072, vocabulary 128100, relative attention with 256
position buckets, c2p and p2c disentangled attention, 3 labels; about 184 M parameters), fp32,
eval mode, torch.inference_mode. Each request is one sentence of 64 token ids held as a Python list
(as a tokenizer hands them over): torch.tensor(..., device="cuda") copies it to the GPU (line 38),
the model runs (line 39), and the predicted label is read back with int(...) (line 40, an .item():
the host waits for the GPU). A batch of one sentence of 64 tokens is very little GPU work for each
of the hundreds of small kernels the model's Python launches per request (12 layers of projections,
the relative-position c2p/p2c gathers, softmax, LayerNorms, residuals). 20 warm-up requests are
not timed; REQUESTS timed requests (default 60); prints the median request time."""
import os
import random

import torch
from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

from step_timer import StepTimer

requests = int(os.environ.get("REQUESTS", "60"))
torch.manual_seed(0)
random.seed(0)
batch_size, seq_len, vocab = 1, 64, 128100
config = DebertaV2Config(vocab_size=vocab, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                         intermediate_size=3072, max_position_embeddings=512, relative_attention=True,
                         position_buckets=256, max_relative_positions=-1, pos_att_type=["p2c", "c2p"],
                         norm_rel_ebd="layer_norm", share_att_key=True, position_biased_input=False,
                         type_vocab_size=0, num_labels=3)
model = DebertaV2ForSequenceClassification(config).cuda().eval()
sentences = [[[random.randrange(1000, vocab) for _ in range(seq_len)] for _ in range(batch_size)]
             for _ in range(16)]

timer = StepTimer(skip=20)
labels = []
with torch.inference_mode():
    for i in range(requests + 20):
        timer.tick()
        ids = torch.tensor(sentences[i % 16], device="cuda")
        logits = model(input_ids=ids).logits                                 # [1, 3]
        labels.append(int(logits[0].argmax()))                               # waits for the GPU
    timer.tick()
timer.report("deberta_v3_serve_b1")
print(f"label counts {[labels.count(k) for k in range(3)]}")
