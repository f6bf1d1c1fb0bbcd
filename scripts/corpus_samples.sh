#!/usr/bin/env bash
# Copies the NVIDIA cuda-samples the corpus uses (tests/corpus/expect/*.json name them) from a
# local clone into .corpus/cuda-samples (ignored, carried to the GPU machine; never committed).
# Usage: scripts/corpus_samples.sh PATH_TO_CUDA_SAMPLES_GIT_DIR [COMMIT]
set -euo pipefail
repo=${1:?usage: corpus_samples.sh CUDA_SAMPLES_GIT_DIR [COMMIT]}
commit=${2:-HEAD}
dest=.corpus/cuda-samples
rm -rf "$dest" && mkdir -p "$dest"
git --git-dir="$repo" archive "$commit" Common/helper_cuda.h Common/helper_string.h Common/helper_functions.h \
  Common/helper_timer.h Common/helper_image.h Common/exception.h \
  Samples/0_Introduction/simpleHyperQ Samples/0_Introduction/asyncAPI Samples/0_Introduction/simpleCallback \
  Samples/0_Introduction/simpleStreams Samples/0_Introduction/simpleMultiCopy \
  Samples/3_CUDA_Features/StreamPriorities Samples/3_CUDA_Features/simpleCudaGraphs \
  Samples/2_Concepts_and_Techniques/streamOrderedAllocation | tar x -C "$dest"
echo "$commit $(git --git-dir="$repo" rev-parse "$commit")" >"$dest/COMMIT"
