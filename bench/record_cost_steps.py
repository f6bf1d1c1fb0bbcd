#!/usr/bin/env python3
"""What recording costs a real step (issue 66): a BERT training step with AMP and GradScaler
(transformers, from a config) or a two-stream ResNet-18 inference step (torchvision), timed as
the wall time between two torch.cuda.synchronize() calls over the steady steps. PROFILE=1 runs
the steady steps under torch.profiler (CPU and CUDA activity), the anchor to compare with.
Prints "MODEL: step X ms" for bench/record_cost_steps.sh to read.
STREAMLAB_AB_STEPS=N instead runs N pairs of steps in this one process, one of each pair inside
a recorded range (examples/pytorch/streamlab_example.py: alternate), and prints the median of the
pairs' step ratios (bench/record_overhead.sh, PROGRAMS=bert-pairs): steps milliseconds apart see
the same host, where separate processes drift by more than the recorder costs.
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
pairs = int(os.environ.get("STREAMLAB_AB_STEPS", "0"))
if pairs:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "pytorch"))
    from streamlab_example import alternate, paired_median

    def timed_step():
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        return time.perf_counter() - t0

    inside, outside = alternate(pairs, timed_step)
    difference, ratio = paired_median(inside, outside)
    print(f"step pairs: {pairs} pairs of {model_name} steps, median step ratio inside/outside {ratio:.3f}, "
          f"difference {difference * 1e3:+.3f} ms; medians inside/outside: {sorted(inside)[pairs // 2] * 1e3:.2f}/"
          f"{sorted(outside)[pairs // 2] * 1e3:.2f} ms", flush=True)
    sys.exit(0)
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
