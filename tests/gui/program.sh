#!/usr/bin/env bash
# A recorded program opened as a new user sees it, at 1600x1000: the answer panel on top and
# whole, every rank's GPU lanes on screen, no label cut or drawn over another (check_screenshot
# --expect-layout program); with --show-fix N, the fix's calls highlighted and shown.
# Usage: program.sh GUI CHECKER TRACE[.xz] OUTDIR NAME LANG [more options for the GUI]
set -u
gui=$1 checker=$2 trace=$3 outdir=$4 name=$5 lang=$6
shift 6
if [[ $trace == *.xz ]]; then
  xz -dc "$trace" > "$outdir/$name.json" || exit 1
  trace=$outdir/$name.json
fi
out=$(XDG_CONFIG_HOME="$outdir/cfg" "$gui" --open "$trace" --lang "$lang" --size 1600x1000 "$@" \
  --screenshot "$outdir/$name.png" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || exit $rc  # 77: no display (skipped)
"$checker" "$outdir/$name.png" --expect-layout program | grep -v '^ok    span' || exit 1
if [[ " $* " == *" --show-fix "* ]]; then
  grep -Eq '^fix [0-9]+: [1-9][0-9]* ops highlighted, view ' <<<"$out" || { echo "FAIL: the fix's calls were not shown"; exit 1; }
fi
exit 0
