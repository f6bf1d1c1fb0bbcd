#!/usr/bin/env bash
# Copies NVIDIA's cuda-samples that the sweep builds (scripts/gpu_samples_sweep.sh: every sample
# under 0_Introduction, 2_Concepts_and_Techniques, 3_CUDA_Features and 6_Performance, and Common/)
# from a local clone into .corpus/cuda-samples-all (ignored, carried to the GPU machine; never
# committed). Samples the sweep skips (OpenGL, EGL, MPI, ...: scripts/samples_plan.py says why)
# are left out, and so are Windows project files, to keep the copy small enough to carry.
# Usage: scripts/corpus_samples_all.sh PATH_TO_CUDA_SAMPLES_GIT_DIR [COMMIT]
set -euo pipefail
repo=${1:?usage: corpus_samples_all.sh CUDA_SAMPLES_GIT_DIR [COMMIT]}
commit=${2:-HEAD}
dest=.corpus/cuda-samples-all
here=$(dirname "$0")
rm -rf "$dest" && mkdir -p "$dest"
# File by file, not `git archive`: a mirror may lack some large blobs (documents, images of
# samples not built); a file that cannot be read is named and left out.
git --git-dir="$repo" ls-tree -r "$commit" Common Samples/0_Introduction Samples/2_Concepts_and_Techniques \
  Samples/3_CUDA_Features Samples/6_Performance |
  grep -v -E '\.(vcxproj|vcxproj\.filters|sln)$|/doc/|^[^\t]*\tCommon/(lib|GL|UtilNPP)/' |
  while IFS=$'\t' read -r meta path; do
    mkdir -p "$dest/$(dirname "$path")"
    git --git-dir="$repo" cat-file blob "${meta##* }" >"$dest/$path" 2>/dev/null ||
      { rm -f "$dest/$path"; echo "not in this clone: $path" >&2; }
  done
# What is left out and why (the sweep's table lists these too): SKIPPED.tsv, sample and reason.
python3 "$here/samples_plan.py" "$dest" | awk -F'\t' -v OFS='\t' '$3 != "-" {print $1, $3}' >"$dest/SKIPPED.tsv"
python3 "$here/samples_plan.py" "$dest" | awk -F'\t' '$3 != "-" {print $2}' | while read -r skipped; do
  rm -rf "${dest:?}/$skipped"
done
echo "$commit $(git --git-dir="$repo" rev-parse "$commit")" >"$dest/COMMIT"
echo "$dest: $(du -sh "$dest" | cut -f1), $(python3 "$here/samples_plan.py" "$dest" | awk -F'\t' '$3 == "-"' | wc -l) samples to build"
