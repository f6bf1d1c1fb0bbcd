#!/usr/bin/env bash
# On the GPU machine: records the corpus of real programs (tests/corpus/): NVIDIA's cuda-samples,
# built from the sources carried in .corpus/cuda-samples (scripts/corpus_samples.sh fetches
# them; none is committed), and the training loops in tests/corpus/programs/ (recorded, and the
# two marked so also as torch.profiler traces). Each program's own output is kept beside its
# trace, in OUT_DIR/corpus/.
# Usage: scripts/gpu_corpus.sh OUT_DIR [NAME...]
set -uo pipefail
out=${1:?usage: gpu_corpus.sh OUT_DIR [NAME...]}
shift
only=" $* "
want() { [ "$only" = "  " ] || [[ "$only" == *" $1 "* ]]; }
out=$(realpath "$out")
dir="$out/corpus"
mkdir -p "$dir" "$out/bin"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" streamlab_recorder || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$dir/gpu.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" >>"$dir/gpu.txt" 2>&1
samples=.corpus/cuda-samples
declare -A path=(
  [simpleHyperQ]=0_Introduction/simpleHyperQ [asyncAPI]=0_Introduction/asyncAPI
  [simpleCallback]=0_Introduction/simpleCallback [simpleStreams]=0_Introduction/simpleStreams
  [StreamPriorities]=3_CUDA_Features/StreamPriorities [simpleCudaGraphs]=3_CUDA_Features/simpleCudaGraphs
  [streamOrderedAllocation]=2_Concepts_and_Techniques/streamOrderedAllocation
  [simpleMultiCopy]=0_Introduction/simpleMultiCopy)
for name in "${!path[@]}"; do
  want "$name" || continue
  src="$samples/Samples/${path[$name]}"
  nvcc -O2 -arch=sm_90 -std=c++17 -I "$samples/Common" "$src"/*.cu $(ls "$src"/*.cpp 2>/dev/null) -o "$out/bin/$name" \
    -lpthread >"$dir/$name.build.log" 2>&1 || echo "$name: build failed" >>"$dir/summary.txt" &
done
wait
record() {  # NAME ENV... -- COMMAND...
  local name=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$cli" record --out "$dir/$name.json" -- "$@" >"$dir/$name.stdout" 2>&1
  echo "$name: record exit $?" >>"$dir/summary.txt"
  "$cli" explain "$dir/$name.json" >"$dir/$name.explain.txt" 2>&1
}
for name in "${!path[@]}"; do
  want "$name" || continue
  [ -x "$out/bin/$name" ] || continue
  extra=()
  [ "$name" = simpleHyperQ ] && extra=(CUDA_DEVICE_MAX_CONNECTIONS=32)
  bin=$(realpath "$out/bin/$name")
  (cd "$samples/Samples/${path[$name]}" && record "$name" "${extra[@]}" STREAMLAB_CORPUS=1 -- "$bin")
done
progs=tests/corpus/programs
for name in gpt2_train resnet_dataloader lightning_train; do
  want "$name" || continue
  record "$name" PYTHONPATH=$progs -- python3 "$progs/$name.py"
done
for name in gpt2_train resnet_dataloader; do
  want "${name}_kineto" || continue
  PYTHONPATH=$progs KINETO_OUT="$dir/${name}_kineto.json" python3 "$progs/$name.py" >"$dir/${name}_kineto.stdout" 2>&1
  echo "${name}_kineto: exit $?" >>"$dir/summary.txt"
  "$cli" explain "$dir/${name}_kineto.json" >"$dir/${name}_kineto.explain.txt" 2>&1
done
cat "$dir/summary.txt"
