#!/usr/bin/env bash
# The simulator's prediction for data-parallel backward passes on 2 x 4 GPUs on two hosts,
# against the same 8 GPUs in one host (NVLink). The scenario is w3-comm-compute-overlap's
# program on 8 GPUs (a bucket's all-reduce on a comm stream, or on the compute stream);
# bench/profiles/h200-two-hosts.json is the H200 profile with the ring's figures of a
# network instead of NVLink - ASSUMED (one 400 Gb/s NIC per GPU, ~45 GB/s bus bandwidth,
# 8 us per ring step), not measured: put yours from nccl-tests' all_reduce_perf there.
# Usage: bench/multi_host_prediction.sh CLI [LAYERS] [LAYER_US] [BUCKET_MB]
set -euo pipefail
cli=$1
layers=${2:-4}
layer_us=${3:-500}
bucket_mb=${4:-64}
dir=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
for variant in overlapped serial; do
  python3 - "$variant" "$layers" "$layer_us" "$bucket_mb" >"$dir/$variant.json" <<'PY'
import json, sys
variant, layers, layer_us, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
gpus = 8
streams, events, buffers, ops = [], [], [], []
for g in range(gpus):
    streams += [{"name": f"compute{g}", "device": g}, {"name": f"comm{g}", "device": g}]
for l in range(layers):
    for g in range(gpus):
        buffers.append({"name": f"grad{g}_{l}", "device": g, "bytes": mb << 20})
for l in reversed(range(layers)):
    for g in range(gpus):
        ops.append({"op": "kernel", "name": f"backward{l}_gpu{g}", "stream": f"compute{g}",
                    "kernel": {"kind": "spin", "grid": 8, "block": 128, "work": layer_us * 1000, "writes": [f"grad{g}_{l}"]}})
        if variant == "overlapped":
            events.append({"name": f"ready{l}_{g}", "device": g})
            ops.append({"op": "record", "stream": f"compute{g}", "event": f"ready{l}_{g}"})
            ops.append({"op": "wait_event", "stream": f"comm{g}", "event": f"ready{l}_{g}"})
    first = len(ops)
    for g in range(gpus):
        ops.append({"op": "collective", "name": f"allreduce{l}_gpu{g}", "collective": "all_reduce",
                    "collective_first": first, "stream": f"{'comm' if variant == 'overlapped' else 'compute'}{g}",
                    "buffer": f"grad{g}_{l}", "bytes": mb << 20})
for g in range(gpus):
    ops += [{"op": "set_device", "device": g}, {"op": "sync_device"}]
print(json.dumps({"kind": "streamlab.scenario", "schema": 1, "name": f"ddp-8gpu-{variant}", "device_count": gpus,
                  "streams": streams, "events": events, "buffers": buffers, "ops": ops}))
PY
done
printf "%-34s %-11s %11s %15s\n" "8 GPUs, $layers layers x $layer_us us" variant "GPU time" "one all-reduce"
for profile in h200 "$here/profiles/h200-two-hosts.json"; do
  label=$([ "$profile" = h200 ] && echo "one host (NVLink, 2-GPU figures)" || echo "two hosts x 4 (network, assumed)")
  for variant in overlapped serial; do
    "$cli" run "$dir/$variant.json" --backend sim --profile "$profile" --quiet --out "$dir/$variant.trace.json"
    python3 - "$dir/$variant.trace.json" "$label" "$variant" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ops = t["scenario"]["ops"]
gpu = [r for r in t["ops"] if "start" in r]
span = max(r["end"] for r in gpu) - min(r["start"] for r in gpu)
ar = [r["end"] - r["ready"] for o, r in zip(ops, t["ops"]) if o["op"] == "collective"]
print(f"{sys.argv[2]:<34} {sys.argv[3]:<11} {span/1e6:>8.2f} ms {min(ar)/1e3:>11.0f} us")
PY
  done
done
rm -rf "$dir"
