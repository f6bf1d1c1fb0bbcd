#!/usr/bin/env bash
# Runs `streamlab-cli explain` on every trace under DIR (*.json, *.json.gz: torch.profiler
# traces from other machines and torch versions, e.g. a clone of HTA's tests/data) and prints
# a Markdown row each: exit code, seconds, ops explained and the first line it printed.
# Fails if any run crashed, hung or exited with anything but 0 (explained) or 2 (refused,
# with a one-line reason). Usage: tools/check_kineto_corpus.sh CLI DIR
set -u
cli=${1:?usage: check_kineto_corpus.sh CLI DIR}
dir=${2:?usage: check_kineto_corpus.sh CLI DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
echo "| trace | exit | seconds | first line |"
echo "| --- | --- | --- | --- |"
while IFS= read -r f; do
  name=${f#"$dir"/}
  case $f in
    *.gz) gzip -dc "$f" > "$work/t.json" 2>/dev/null || { echo "| $name | - | - | not gzip: skipped |"; continue; } ;;
    *) cp "$f" "$work/t.json" ;;
  esac
  [ -s "$work/t.json" ] || { echo "| $name | - | - | empty (a Git LFS pointer?): skipped |"; continue; }
  start=$(date +%s.%N)
  timeout 120 "$cli" explain --lang en "$work/t.json" > "$work/out.txt" 2>&1
  rc=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  first=$(head -n 1 "$work/out.txt" | sed "s|$work/t.json|…|; s/|/\\\\|/g" | cut -c1-160)
  # The first finding (or the figures), after the trace's notes.
  if [ "$rc" = 0 ]; then first="$(grep -m1 -E '^(\[|GPU time)' "$work/out.txt" | cut -c1-160 | sed 's/|/\\|/g')"; fi
  printf "| %s | %s | %.2f | %s |\n" "$name" "$rc" "$seconds" "$first"
  if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then bad=$((bad + 1)); fi
  if [ "$rc" = 2 ] && ! grep -q "^streamlab-cli: " "$work/out.txt"; then bad=$((bad + 1)); fi
done < <(find "$dir" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort)
if [ "$bad" -gt 0 ]; then
  echo "$bad trace(s) crashed, hung or failed without a reason" >&2
  exit 1
fi
