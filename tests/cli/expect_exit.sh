#!/usr/bin/env bash
# Runs a command and passes if it exits with the expected code and (optionally) prints a
# message matching a pattern on stderr/stdout. Usage: expect_exit.sh CODE PATTERN cmd args...
set -u
expected=$1; pattern=$2; shift 2
out=$("$@" 2>&1); code=$?
if [ "$code" != "$expected" ]; then
  echo "expected exit $expected, got $code from: $*"; echo "$out"; exit 1
fi
if [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$out"; then
  echo "output does not match /$pattern/:"; echo "$out"; exit 1
fi
echo "ok: exit $code"
