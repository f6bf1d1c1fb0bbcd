#!/usr/bin/env bash
# Builds a scenario in the GUI's sandbox from a script of its own actions, runs it on the
# simulator, screenshots it, then runs the saved file unchanged in streamlab-cli.
# Usage: sandbox.sh GUI CLI CHECKER SCRIPT OUTDIR
set -u
gui=$1; cli=$2; checker=$3; script=$4; out=$5
export XDG_CONFIG_HOME=$out/cfg
saved=$out/sandbox.json
rm -f "$saved"
{ cat "$script"; echo "save $saved"; } >"$out/sandbox-script.txt"
"$gui" --sandbox-script "$out/sandbox-script.txt" --backend sim --screenshot "$out/sandbox.png" --size 1400x900 || exit $?
"$checker" "$out/sandbox.png" || exit 1
[ -s "$saved" ] || { echo "FAIL the sandbox saved nothing"; exit 1; }
"$cli" run "$saved" --backend sim || { echo "FAIL streamlab-cli could not run the saved sandbox"; exit 1; }
# A refused edit names its reason and exits non-zero.
printf 'stream s1\nwait s1 nope\n' >"$out/bad-script.txt"
if "$gui" --sandbox-script "$out/bad-script.txt" --backend sim --screenshot "$out/bad.png" 2>"$out/bad.err"; then
  echo "FAIL an invalid sandbox edit was accepted"; exit 1
fi
grep -q 'no event named "nope"' "$out/bad.err" || { echo "FAIL no reason given:"; cat "$out/bad.err"; exit 1; }
echo "sandbox ok"
