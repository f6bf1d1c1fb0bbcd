#!/usr/bin/env bash
# Opens every lab's every variant in the GUI headless (run, render, screenshot, close) and
# checks each screenshot. Usage: every_lab.sh GUI CLI CHECKER OUTDIR
set -u
gui=$1; cli=$2; checker=$3; out=$4
export XDG_CONFIG_HOME=$out/cfg
failed=0
while read -r lab variants; do
  for variant in $variants; do
    "$gui" --lab "$lab" --variant "$variant" --backend sim --screenshot "$out/$lab.$variant.png" --size 1280x800 >/dev/null
    rc=$?
    [ $rc -eq 77 ] && exit 77
    if [ $rc -ne 0 ] || ! "$checker" "$out/$lab.$variant.png" >/dev/null; then
      echo "FAIL $lab/$variant (exit $rc)"; failed=1
    else
      echo "ok   $lab/$variant"
    fi
  done
done < <("$cli" list | awk '/^  w[0-9]-/ {lab=$1} /variants:/ {sub(/.*variants: */, ""); sub(/ +params:.*/, ""); print lab, $0}')
exit $failed
