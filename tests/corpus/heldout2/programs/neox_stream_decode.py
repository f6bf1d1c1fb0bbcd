"""Streaming text generation with a Pythia-shaped causal LM (transformers' GPTNeoXForCausalLM, built
from a config, random weights: 16 layers, hidden 1024, 16 heads, bf16, eval, inference_mode) the way
a hand-written token-streaming server loop does it: one prefill of 4 prompts of 64 tokens, then one
forward per generated token with the KV cache (past_key_values), greedy argmax, and the 4 new token
ids read back with .tolist() every token so they can be streamed to the clients (the host waits
for the token there). No CUDA graphs, no torch.compile: every layer's kernels are launched one by
one from Python, for a batch of 4 single-token rows. One step = one generated token.
STEPS tokens (default 48); prints the median step (per-token) time."""
import os

import torch
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "48"))
torch.manual_seed(0)
config = GPTNeoXConfig(vocab_size=50304, hidden_size=1024, num_hidden_layers=16, num_attention_heads=16,
                       intermediate_size=4096, max_position_embeddings=2048, rotary_pct=0.25)
model = GPTNeoXForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
prompts = torch.randint(0, config.vocab_size, (4, 64), device="cuda")

timer = StepTimer()
streamed = [[] for _ in range(4)]
with torch.inference_mode():
    out = model(input_ids=prompts, use_cache=True)                  # prefill
    past = out.past_key_values
    next_ids = out.logits[:, -1, :].argmax(dim=-1, keepdim=True)
    for row, token in zip(streamed, next_ids.squeeze(1).tolist()):
        row.append(token)
    for step in range(steps):
        timer.tick()
        out = model(input_ids=next_ids, past_key_values=past, use_cache=True)  # some 400 small kernels
        past = out.past_key_values
        next_ids = out.logits[:, -1, :].argmax(dim=-1, keepdim=True)
        for row, token in zip(streamed, next_ids.squeeze(1).tolist()):   # the host waits for the token
            row.append(token)
timer.tick()
timer.report("neox_stream_decode")
print(f"{sum(len(r) for r in streamed)} tokens streamed")
