#!/usr/bin/env bash
# On the GPU machine: the cuda-samples sweep (issue 66). Every NVIDIA cuda-sample under
# 0_Introduction, 2_Concepts_and_Techniques, 3_CUDA_Features and 6_Performance carried in
# .corpus/cuda-samples-all (scripts/corpus_samples_all.sh copies it from a clone) that builds with
# plain nvcc (scripts/samples_plan.py reads how from its CMakeLists.txt, and why the others are
# skipped) is run plainly, then recorded (`streamlab-cli record`), then explained. The table
# OUT_DIR/sweep.tsv has one row per sample:
#   sample  build  plain_exit  record_exit  ops  explain_exit  seconds
# ("-": the step did not run; 124: it ran past its timeout). Each sample's build log, outputs,
# trace and explanation are in OUT_DIR/samples/NAME/; OUT_DIR/summary.txt says which samples that
# ran plainly did not record with the program's status or explain with exit 0.
# Samples build in parallel (one per core) while the CLI builds; the plain+record pairs run 4 at a
# time. A sample that hangs or crashes costs its timeout (plain 60 s, record 120 s, explain
# 120 s), nothing more. About 8 minutes on a 16-core machine.
# Usage: scripts/gpu_samples_sweep.sh OUT_DIR [SAMPLE...]   (SAMPLE: a name, e.g. simpleP2P)
# Env: SAMPLES_DIR (default .corpus/cuda-samples-all), SWEEP_RUNS (pairs at a time, default 4),
#      SWEEP_ARCH (default 90), BUILD_DIR (the CLI's, as gpu_build.sh), SWEEP_CLI (a streamlab-cli
#      already built: no build).
set -uo pipefail
out=$(realpath -m "${1:?usage: gpu_samples_sweep.sh OUT_DIR [SAMPLE...]}")
shift
only=" $* "
corpus=${SAMPLES_DIR:-.corpus/cuda-samples-all}
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$corpus/Samples" ] || { echo "no $corpus/Samples: run scripts/corpus_samples_all.sh first" >&2; exit 2; }
started=$SECONDS
mkdir -p "$out"
tree=$out/tree  # a fresh copy: samples write their outputs beside themselves
logs=$out/samples
rm -rf "$tree" "$logs" && mkdir -p "$tree" "$logs"
cp -r "$corpus/Common" "$corpus/Samples" "$tree/"

# [1] The CLI and its recorder build in the background while the samples build (SWEEP_CLI: one
# already built, used as it is).
export NCCL_NVLS_ENABLE=0
cli=${SWEEP_CLI:-}
cli_job=""
if [ -z "$cli" ]; then
  . "$here/gpu_build.sh"
  cli="${BUILD_DIR:-/tmp/streamlab-build}/app/cli/streamlab-cli"
  rm -f "$cli"
  (gpu_build "$out" streamlab_recorder) >"$out/cli_build.txt" 2>&1 &
  cli_job=$!
fi

# [2] The plan: one line per sample (sample, dir, skip reason, build command).
python3 "$here/samples_plan.py" "$tree" "${SWEEP_ARCH:-90}" >"$out/plan.tsv"
wanted() {  # keeps the plan's lines whose sample name was asked for (all when none was)
  awk -F'\t' -v only="$only" 'only == "  " || index(only, " " substr($1, index($1, "/") + 1) " ")'
}
# The samples to build, NUL-separated for xargs: name, folder, executable, build command.
sample_jobs() {
  wanted <"$out/plan.tsv" | awk -F'\t' '$3 == "-"' | while IFS=$'\t' read -r sample dir skip command; do
    exe=$(sed -E 's/.* -o ([^ ]+) .*/\1/' <<<"${command%% && *}")
    printf '%s\0%s\0%s\0%s\0' "${sample#*/}" "$dir" "$exe" "$command"
  done
}

build_one() {  # NAME DIR EXECUTABLE COMMAND
  local name=$1 dir=$2 exe=$3 command=$4 d=$logs/$1
  mkdir -p "$d"
  if (cd "$tree/$dir" && timeout -k 5 600 bash -c "$command" && [ -x "$exe" ]) >"$d/build.log" 2>&1; then
    echo ok >"$d/build.status"
  else
    echo failed >"$d/build.status"
  fi
}
export -f build_one
export tree logs
sample_jobs | xargs -0 -n 4 -P "$(nproc)" bash -c 'build_one "$@"' _
echo "samples built after $((SECONDS - started)) s" >&2
[ -n "$cli_job" ] && { wait "$cli_job" || echo "the CLI did not build (see $out/cmake.log): nothing is recorded" >&2; }
[ -x "$cli" ] || cli=""

# [3] Each built sample: plainly, recorded, explained, in its own folder (it finds its data).
run_one() {  # NAME DIR EXECUTABLE (COMMAND)
  local name=$1 dir=$2 exe=$3 d=$logs/$1 t0=$SECONDS plain=- record=- ops=- explain=-
  local status
  status=$(cat "$d/build.status" 2>/dev/null || echo failed)
  if [ "$status" = ok ]; then
    (cd "$tree/$dir" && timeout -k 5 60 "./$exe" </dev/null >"$d/plain.out" 2>&1)
    plain=$?
    if [ -n "$cli" ]; then
      (cd "$tree/$dir" && timeout -k 5 120 "$cli" record --out "$d/trace.json" -- "./$exe" </dev/null >"$d/record.out" 2>&1)
      record=$?
      # record prints "...; N ops recorded to FILE" when it wrote a trace.
      ops=$(grep -o '[0-9]* ops recorded to' "$d/record.out" | tail -1 | cut -d' ' -f1)
      [ -z "$ops" ] && ops=-
      if [ -s "$d/trace.json" ]; then
        timeout -k 5 120 "$cli" explain "$d/trace.json" </dev/null >"$d/explain.txt" 2>&1
        explain=$?
      fi
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$plain" "$record" "$ops" "$explain" "$((SECONDS - t0))" >"$d/row.tsv"
}
export -f run_one
export cli
sample_jobs | xargs -0 -n 4 -P "${SWEEP_RUNS:-4}" bash -c 'run_one "$@"' _

# [4] The table: every sample, the skipped ones with their reason.
{
  printf 'sample\tbuild\tplain_exit\trecord_exit\tops\texplain_exit\tseconds\n'
  {
    wanted <"$out/plan.tsv" | awk -F'\t' -v OFS='\t' '$3 != "-" {print $1, "skip: " $3, "-", "-", "-", "-", 0}'
    [ -f "$corpus/SKIPPED.tsv" ] && wanted <"$corpus/SKIPPED.tsv" | awk -F'\t' -v OFS='\t' '{print $1, "skip: " $2, "-", "-", "-", "-", 0}'
    wanted <"$out/plan.tsv" | awk -F'\t' '$3 == "-"' | while IFS=$'\t' read -r sample dir skip command; do
      row=$(cat "$logs/${sample#*/}/row.tsv" 2>/dev/null) || row=$(printf '%s\tfailed\t-\t-\t-\t-\t0' "${sample#*/}")
      printf '%s\t%s\n' "${sample%%/*}/$(cut -f1 <<<"$row")" "$(cut -f2- <<<"$row")"
    done
  } | sort
} >"$out/sweep.tsv"

# [5] What the issue asks: every sample that runs plainly records with the program's status
# (0) and explains with exit 0.
awk -F'\t' -v total="$((SECONDS - started))" '
  NR == 1 { next }
  $2 ~ /^skip/ { skipped++; next }
  $2 != "ok" { build_failed++; print "build failed: " $1; next }
  { built++ }
  $3 != 0 { ran_not++; next }
  { ran++ }
  $4 == 0 && $6 == 0 { good++; next }
  { print "ran plainly but record exit " $4 ", explain exit " $6 ": " $1 }
  END {
    printf "%d samples: %d skipped, %d failed to build, %d built; %d ran plainly (exit 0), %d did not\n",
      NR - 1, skipped, build_failed, built, ran, ran_not
    printf "of the %d that ran plainly, %d recorded (exit 0) and explained (exit 0): %s; %d s in all\n",
      ran, good, (ran == good ? "all" : "NOT all"), total
  }' "$out/sweep.tsv" | tee "$out/summary.txt"
