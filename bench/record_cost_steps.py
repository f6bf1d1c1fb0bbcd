#!/usr/bin/env python3
"""What recording costs a real step (issue 66): a BERT training step with AMP and GradScaler
(transformers, from a config) or a two-stream ResNet-18 inference step (torchvision), timed as
the wall time between two torch.cuda.synchronize() calls over the steady steps. PROFILE=1 runs
the steady steps under torch.profiler (CPU and CUDA activity), the anchor to compare with.
Prints "MODEL: step X ms" for bench/record_cost_steps.sh to read.
Usage: record_cost_steps.py bert|resnet [STEPS]"""
import contextlib
import os
import sys
import time

import torch

model_name = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
torch.manual_seed(0)

if model_name == "bert":
    from transformers import BertConfig, BertForMaskedLM
    config = BertConfig(num_hidden_layers=4, hidden_size=256, num_attention_heads=4, intermediate_size=1024,
                        vocab_size=8192, max_position_embeddings=256)
    model = BertForMaskedLM(config).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    tokens = torch.randint(0, config.vocab_size, (16, 128), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(tokens, labels=tokens).loss
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
else:
    import torchvision
    model = torchvision.models.resnet18().cuda().eval()
    side = torch.cuda.Stream()
    inputs = [torch.randn(32, 3, 224, 224, device="cuda") for _ in range(2)]

    @torch.no_grad()
    def step():
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            b = model(inputs[1])
        a = model(inputs[0])
        torch.cuda.current_stream().wait_stream(side)
        return a, b

for _ in range(5):  # warm-up: modules loaded, allocator grown, cuBLAS chosen
    step()
torch.cuda.synchronize()
profiled = contextlib.nullcontext()
if os.environ.get("PROFILE"):
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    profiled = torch.profiler.profile(activities=acts)
with profiled:
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
print(f"{model_name}: step {elapsed / steps * 1e3:.3f} ms", flush=True)
