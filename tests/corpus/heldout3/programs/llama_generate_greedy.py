"""Greedy text generation with transformers' generate() and its KV cache (DynamicCache) on a
Llama-shaped decoder (LlamaForCausalLM built from a config, random weights: 16 layers, hidden 1536,
12 heads with 4 key/value heads, MLP 4096, vocabulary 32000, about 0.5 B parameters, bf16, eval),
the way a small batch-inference script calls it: 2 prompts of 32 tokens, do_sample=False,
max_new_tokens=64 (no EOS: eos_token_id=None, so every call makes exactly 64 tokens). Inside each
call generate() runs one prefill and 63 single-token decode forwards, each launching some 500 small
kernels one by one from Python (16 layers of RMSNorm, projections, rotary, cache update, attention,
MLP), with its own per-token Python around them (input preparation, logits processing, stopping
criteria) and a host read of the "all sequences finished?" flag every token. No CUDA graphs, no
torch.compile. One step = one generate() call (64 new tokens for 2 rows); the generated ids stay on
the GPU until the end. STEPS calls (default 12); prints the median step (per-call) time."""
import os

import torch
from transformers import LlamaConfig, LlamaForCausalLM

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "12"))
torch.manual_seed(0)
config = LlamaConfig(vocab_size=32000, hidden_size=1536, intermediate_size=4096, num_hidden_layers=16,
                     num_attention_heads=12, num_key_value_heads=4, max_position_embeddings=2048,
                     bos_token_id=1, eos_token_id=None, pad_token_id=0, tie_word_embeddings=False)
with torch.device("cuda"):
    model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
model.generation_config.eos_token_id = None
model.generation_config.pad_token_id = 0
prompts = [torch.randint(3, config.vocab_size, (2, 32), device="cuda") for _ in range(4)]
attention_mask = torch.ones(2, 32, dtype=torch.long, device="cuda")

timer = StepTimer(skip=3)
outputs = []
with torch.inference_mode():
    for step in range(steps):
        timer.tick()
        out = model.generate(input_ids=prompts[step % 4], attention_mask=attention_mask, do_sample=False,
                             max_new_tokens=64, use_cache=True)   # 64 tokens, ~500 kernels each
        outputs.append(out[:, 32:])                               # stays on the GPU
timer.tick()
timer.report("llama_generate_greedy")
new_tokens = torch.cat(outputs).cpu()
print(f"{new_tokens.numel()} tokens generated; {new_tokens.shape[1]} per row per call")
