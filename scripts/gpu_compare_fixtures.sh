#!/usr/bin/env bash
# On the GPU machine: re-records the program behind every committed recorded fixture
# (tests/fixtures/recorded/, the command its "program" note names) with this checkout's
# recorder, and prints the warnings and notes of each, by kind, beside the fixture's. After a
# recorder change the warnings must match; host-block and start-delay notes depend on timing.
# Fixtures recorded under an allocator setting (*_expandable, *_async) and the crash are left
# out: their command does not say it. Usage: [ONLY=GLOB] scripts/gpu_compare_fixtures.sh OUT_DIR
out=${1:?usage: gpu_compare_fixtures.sh OUT_DIR}
mkdir -p "$out/rec"
. "$(dirname "$0")/gpu_build.sh"
gpu_build "$out" streamlab_recorder streamlab_example_graph_by_hand streamlab_example_legacy_stall || exit 1
counts() {
  python3 -c '
import collections, json, sys
d = json.load(sys.stdin)
c = collections.Counter((f["severity"], f["kind"]) for f in d["findings"] if f["severity"] in ("warning", "note"))
print(" ".join(f"{s}:{k}={n}" for (s, k), n in sorted(c.items())))'
}
for f in tests/fixtures/recorded/*.json; do
  name=$(basename "$f" .json)
  case $name in *_expandable | *_async | crash_midway) continue ;; esac
  [[ -n ${ONLY:-} && $name != $ONLY ]] && continue  # ONLY='training_loop*': those fixtures alone
  cmd=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([k["vars"]["command"] for k in d["note_keys"] if k["key"].startswith("program")][0])' "$f")
  cmd=${cmd//\/work\/main\/build-gpu/$build}  # the raw CUDA examples were built there
  # The NVTX training loops: recorded by scripts/gpu_record_examples.sh with settings their
  # command does not show (two steps, a profiler range, every op an NVTX range); the first
  # was run from examples/pytorch.
  settings=()
  case $name in
    training_loop_nvtx*)
      settings=(STREAMLAB_STEPS=2 STREAMLAB_PROFILER_RANGE=1 STREAMLAB_EMIT_NVTX=1)
      cmd=${cmd/python3 training_loop.py/python3 examples/pytorch/training_loop.py} ;;
  esac
  # Recorded in a capture range: the fixture's notes say so.
  range=()
  grep -q '"key": *"capture_range"' "$f" && range=(--capture-range cudaProfilerApi)
  # shellcheck disable=SC2086  # the command is split into its words on purpose
  timeout 120 env "${settings[@]}" "$cli" record "${range[@]}" --out "$out/rec/$name.json" -- $cmd >"$out/rec/$name.log" 2>&1
  echo "$name (record exit $?)"
  echo "  fixture: $("$cli" explain --json "$f" | counts)"
  echo "  now:     $("$cli" explain --json "$out/rec/$name.json" | counts)"
done | tee "$out/compare.txt"
