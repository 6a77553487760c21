#!/usr/bin/env bash
# Smoke run of bench/extreme.sh with small sizes (20 manifests, 20 XDG_DATA_DIRS entries) against our
# loader and Debian's (when installed): every case must complete in both loaders and find the
# expected physical devices (one per driver manifest in the "drivers" and "distinct" cases, else
# one; in "drivers" all alike, in "distinct" all different). No timing assertions.
set -euo pipefail
r="${RUNFILES_DIR:-$PWD/..}/vk_loader_harness"
[ -x "$r/bench/gpu_timing" ] || r="$PWD"
export TMPDIR="${TEST_TMPDIR:-/tmp}"
out="$TMPDIR/extreme_rows.md"
BIN="$r" bash "$r/bench/extreme.sh" --sizes=20 --xdg=20 --timeout=60 --out="$out"
loaders=1
[ -f /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ] && loaders=2
fail=0
expect() {  # CASE SIZE DEVICES
  local n
  # Rows of CASE and SIZE that completed (a time and a peak RSS) with exactly DEVICES in the last column.
  n=$(awk -F' [|] ' -v c="$1" -v s="$2" -v d="$3" '
        $1 == "| " c && $2 == s && $4 ~ /^[0-9.]+ s [0-9]+ KB$/ && $5 == d " |" { n++ } END { print n + 0 }' "$out")
  if [ "$n" != "$loaders" ]; then
    echo "extreme smoke: case $1 ($2): $n of $loaders loaders gave $3 physical device(s):" >&2
    grep "^| $1 | $2 |" "$out" >&2 || true
    fail=1
  fi
}
expect none 0 1
expect drivers 20 "20 (1 distinct)"
expect distinct 20 20
expect explicit 20 1
expect implicit 20 1
expect xdg 20 1
[ "$fail" = 0 ] && echo "extreme smoke: ok"
exit "$fail"
