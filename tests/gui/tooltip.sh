#!/usr/bin/env bash
# The chart's tooltip, shown in a headless screenshot with the mouse put at X,Y (--hover), and
# its text checked: where the host was, from the trace's ranges, in an empty stretch of a host
# lane and over an idle interval of the GPU.
# AT is X,Y in pixels (--hover) or @MS,LANE[,ROW], a place in the trace (--hover-chart: ms from
# its start, a lane, its k-th row of ranges) that stays put when the layout above the chart moves.
# Usage: tooltip.sh GUI TRACE OUTDIR AT PATTERN [more options for the GUI, e.g. --view 23,32]
set -u
gui=$1 trace=$2 outdir=$3 at=$4 pattern=$5
shift 5
if [[ $at == @* ]]; then hover=(--hover-chart "${at#@}"); else hover=(--hover "$at"); fi
out=$(XDG_CONFIG_HOME="$outdir/cfg" "$gui" --open "$trace" --lang en --size 1600x1000 "${hover[@]}" "$@" \
  --screenshot "$outdir/tooltip.png" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || exit $rc  # 77: no display (skipped)
grep -Eq "$pattern" <<<"$out" || { echo "FAIL: no tooltip matching: $pattern"; exit 1; }
