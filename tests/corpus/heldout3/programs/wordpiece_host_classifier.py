"""Text-classification training of a small Transformer encoder (torch.nn.TransformerEncoder: 2
layers, d_model 128, 4 heads, FFN 512, a learned position table, mean pooling, 8 classes, AdamW,
fp32) whose batches are tokenized in the training loop by a hand-written, pure-Python WordPiece
encoder: each step, 128 raw paragraphs (synthetic, about 150 words each, drawn once from a made-up
3000-word language) are lower-cased, split into words, and each word is cut into the longest
sub-words found in a 5052-entry vocabulary dict, one character slice at a time (wordpiece_encode,
the while loops at lines 48-59), then truncated/padded to 256 ids in Python lists (encode_batch,
lines 63-71, called at line 98). Only then is the id batch made a tensor and moved to the GPU
(line 99). Encoding one batch took about 54 ms of pure Python on a CPU (AMD EPYC) when this was
written. The GPU work of a step is small (a 128 x 256-token batch through 2 layers of width 128:
about 0.1 TFLOP in some 200 kernels, a few ms), so the GPU waits for the Python tokenizer most of
the step. The loss is read with .item() every step. STEPS steps (default 40); prints the median step
time."""
import os
import random

import torch
from torch import nn

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
rng = random.Random(0)
letters = "abcdefghijklmnopqrstuvwxyz"
# A made-up language: 3000 words of 3-12 letters; the vocabulary holds its 6000 most useful pieces.
words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 12))) for _ in range(3000)]
vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
for c in letters:
    vocab[c] = len(vocab)
    vocab["##" + c] = len(vocab)
for w in words[:1000]:                                      # whole words
    vocab[w] = len(vocab)
for w in words[1000:]:                                      # the rest: three pieces each
    k = len(w) // 3
    for piece in (w[:k], "##" + w[k:2 * k], "##" + w[2 * k:]):
        vocab.setdefault(piece, len(vocab))
# The "raw" corpus: 2048 paragraphs of about 150 words, with capitals and full stops to strip.
lines = [" ".join(rng.choice(words).capitalize() if rng.random() < 0.1 else rng.choice(words)
                  for _ in range(rng.randint(130, 170))) + "." for _ in range(2048)]
labels_all = [rng.randrange(8) for _ in lines]
seq_len, batch_size, classes = 256, 128, 8


def wordpiece_encode(word):
    """Greedy longest-match-first WordPiece, as in BERT's reference tokenizer, in plain Python."""
    ids, start = [], 0
    while start < len(word):
        end, piece = len(word), None
        while start < end:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab:
                piece = vocab[sub]
                break
            end -= 1
        if piece is None:
            return [vocab["[UNK]"]]
        ids.append(piece)
        start = end
    return ids


def encode_batch(texts):
    batch = []
    for text in texts:
        ids = [vocab["[CLS]"]]
        for word in text.lower().replace(".", " ").split():
            ids.extend(wordpiece_encode(word))
        ids = ids[: seq_len - 1] + [vocab["[SEP]"]]
        batch.append(ids + [vocab["[PAD]"]] * (seq_len - len(ids)))
    return batch


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(len(vocab), 128, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(seq_len, 128))
        layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(128, classes)

    def forward(self, ids):
        pad = ids == 0
        h = self.encoder(self.embed(ids) + self.pos, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        return self.head((h * keep).sum(1) / keep.sum(1))


model = Classifier().cuda().train()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)

timer = StepTimer()
running = 0.0
for step in range(steps):
    timer.tick()
    first = (step * batch_size) % len(lines)
    ids = encode_batch(lines[first:first + batch_size])                # pure-Python tokenizing (CPU)
    ids = torch.tensor(ids, dtype=torch.long).cuda(non_blocking=True)  # 256 KiB pageable copy
    labels = torch.tensor(labels_all[first:first + batch_size]).cuda(non_blocking=True)
    loss = nn.functional.cross_entropy(model(ids), labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    running += loss.item()                                  # the host waits for the step's GPU work
timer.tick()
timer.report("wordpiece_host_classifier")
print(f"mean loss {running / steps:.3f}; vocabulary {len(vocab)} pieces")
