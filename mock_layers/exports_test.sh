#!/bin/bash
# Checks each mock layer variant's dynamic symbol table against variants.bzl.
# Arguments: pairs of <library path> <comma-separated expected symbols>.
set -u
fail=0
count=0
while [ $# -ge 2 ]; do
  lib="$1"
  expected="$(tr ',' '\n' <<<"$2" | sort)"
  shift 2
  count=$((count + 1))
  actual="$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort)"
  if [ "$actual" != "$expected" ]; then
    echo "FAIL: $(basename "$lib") exports differ from variants.bzl (< expected, > actual):"
    diff <(echo "$expected") <(echo "$actual")
    fail=1
  fi
  if readelf -d "$lib" | grep -q 'TEXTREL'; then
    echo "FAIL: $(basename "$lib") has text relocations"
    fail=1
  fi
done
if [ "$count" -eq 0 ]; then
  echo "FAIL: no libraries given"
  exit 1
fi
[ "$fail" -eq 0 ] && echo "OK: $count variants export exactly their table row"
exit "$fail"
