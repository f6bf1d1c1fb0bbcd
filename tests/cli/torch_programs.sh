#!/usr/bin/env bash
# Every lab variant's PyTorch program is written (--save-program) and is valid Python. With
# no GPU visible the run then stops with exit 3 (no GPU) or 2 (PyTorch cannot run it as
# written), never anything else. Usage: torch_programs.sh STREAMLAB_CLI OUT_DIR
set -u
cli=$1; out=$2
mkdir -p "$out"
n=0
for lab in $("$cli" list | awk '/^  [a-z]/{print $1}'); do
  variants=$("$cli" list | awk -v id="$lab" '$1 == id {found = 1; next} found {sub(/ *params:.*/, ""); sub(/.*variants: */, ""); print; exit}')
  for v in $variants; do
    prog="$out/$lab.$v.py"
    rm -f "$prog"
    CUDA_VISIBLE_DEVICES="" "$cli" run "$lab" --variant "$v" --backend torch --save-program "$prog" >"$out/run.log" 2>&1
    code=$?
    if [ "$code" != 3 ] && [ "$code" != 2 ]; then echo "$lab/$v: exit $code"; cat "$out/run.log"; exit 1; fi
    python3 -m py_compile "$prog" || { echo "$lab/$v: not valid Python"; exit 1; }
    n=$((n + 1))
  done
done
echo "$n programs written and compiled"
