#!/bin/bash
# Checks each mock variant's dynamic symbol table against its variants.bzl row: the one script
# behind //mock_icd:exports_test and //mock_layers:exports_test (their variants.bzl macros pass
# the arguments). Every library also has no text relocations.
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
