#!/usr/bin/env bash
# Regenerates the docs/ screenshots of recorded programs (en and zh, 1600x1000) from the traces
# committed in the repo, and of the labs' pages (the first screen, a lab in both languages,
# presentation and replay, a prediction, an exercise, the sandbox) on the simulator, so they
# show the app as it is; each is checked as the GUI tests check theirs (check_screenshot; for a
# program --expect-layout program: answer on top and whole, every rank's GPU lanes on screen, no
# text cut or drawn over another). Look at them before committing.
# Usage: scripts/docs_screenshots.sh BUILD_DIR     (a GUI build; runs under xvfb-run without $DISPLAY)
set -euo pipefail
build=${1:?usage: scripts/docs_screenshots.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
gui=$build/app/gui/streamlab checker=$build/tests/gui/check_screenshot
[ -x "$gui" ] && [ -x "$checker" ] || { echo "no $gui or $checker: build with the GUI on" >&2; exit 2; }
if [ -z "${DISPLAY:-}" ]; then exec xvfb-run -a -s "-screen 0 1600x1000x24" "$0" "$@"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shot NAME TRACE LANG: docs/NAME.png from TRACE (.xz is decompressed first).
shot() {
  local name=$1 trace=$2 lang=$3
  if [[ $trace == *.xz ]]; then xz -dc "$trace" > "$tmp/$(basename "${trace%.xz}")"; trace=$tmp/$(basename "${trace%.xz}"); fi
  XDG_CONFIG_HOME="$tmp/cfg" "$gui" --open "$trace" --lang "$lang" --size 1600x1000 \
    --screenshot "$tmp/$name.png" > "$tmp/$name.out"
  "$checker" "$tmp/$name.png" --expect-layout program | grep -v '^ok    span' > "$tmp/$name.check" ||
    { cat "$tmp/$name.check"; echo "FAIL: $name" >&2; exit 1; }
  cp "$tmp/$name.png" "$root/docs/$name.png"
  echo "docs/$name.png: $(grep -m1 'run to chart' "$tmp/$name.out")"
}

traces=$root/tests/corpus/traces
shot verdict-gpt2-training-loop "$traces/gpt2_train.json.xz" en
shot verdict-gpt2-training-loop.zh "$traces/gpt2_train.json.xz" zh
shot ddp-gpt2-2ranks "$traces/ddp_gpt2.json.xz" en
shot ddp-gpt2-2ranks.zh "$traces/ddp_gpt2.json.xz" zh
shot ddp-straggler-2xh200 "$root/tests/fixtures/recorded/ddp-straggler" en

# labshot NAME SIZE ARGS...: docs/NAME.png of the GUI started with ARGS on the simulator (the
# first screen has no chart to check: its report line says what it drew).
labshot() {
  local name=$1 size=$2
  shift 2
  rm -rf "$tmp/cfg"
  XDG_CONFIG_HOME="$tmp/cfg" "$gui" "$@" --size "$size" --screenshot "$tmp/$name.png" > "$tmp/$name.out" ||
    { cat "$tmp/$name.out"; echo "FAIL: $name" >&2; exit 1; }
  if [ "$name" = first-screen ]; then
    grep -q '^first screen: labs, open a trace, record a program' "$tmp/$name.out" || { cat "$tmp/$name.out"; echo "FAIL: $name" >&2; exit 1; }
  else
    "$checker" "$tmp/$name.png" > "$tmp/$name.check" 2>&1 || { cat "$tmp/$name.check"; echo "FAIL: $name" >&2; exit 1; }
  fi
  cp "$tmp/$name.png" "$root/docs/$name.png"
  echo "docs/$name.png"
}

legacy=(--lab w2-legacy-default-stall --variant legacy --backend sim)
labshot first-screen 1400x860 --lang en
labshot legacy-stall-en 1400x860 "${legacy[@]}" --lang en
labshot legacy-stall-zh 1400x860 "${legacy[@]}" --lang zh
labshot presentation-zh 1500x900 "${legacy[@]}" --present --lang zh
labshot replay-midway 1500x900 "${legacy[@]}" --present --replay-at 0.55 --lang en
labshot predict-answer 1400x860 "${legacy[@]}" --predict-answer three --lang en
labshot predict-reveal 1400x860 --lab w2-wait-before-work --variant waits-after-work --predict-order work_a,work_b,work_c \
  --backend sim --lang en
echo '# no edits' > "$tmp/no_edits.txt"
labshot exercise-check 1400x860 --exercise w2-legacy-default-stall --sandbox-script "$tmp/no_edits.txt" --backend sim --lang en
labshot sandbox 1400x900 --sandbox-script "$root/tests/gui/sandbox.txt" --backend sim --lang en
