#!/usr/bin/env bash
# vkcube (Debian's vulkan-tools) renders through our libvulkan.so.1 with lavapipe under Xvfb and exits
# 0; a screenshot of its window is compared with one taken through Debian's Khronos loader.
#
# Deterministic frame: vkcube_xkey watches the root window and sends vkcube a space-bar release the
# moment its window is created; vkcube's event loop starts with that key queued, so it pauses right
# after its first frame (the cube's rotation advances per frame, so any other timing would compare
# different angles). The window is captured with xwd once two captures 200 ms apart are identical,
# then a second space resumes vkcube to finish its --c frames. Comparison: ImageMagick
# `compare -metric AE -fuzz 2%` (pixels differing by more than 2%) must be <= 0.5% of the pixels
# (lavapipe is deterministic: expected 0), and the picture must not be blank (> 100 colours).
# Outputs: vkcube_{ours,khronos}.png, vkcube_diff.png, vkcube_compare.txt.
set -euo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/conformance/real/vkcube_lib.sh"
XKEY="$R/conformance/real/vkcube_xkey"
FRAMES=60
start_xvfb

shot() {  # shot ours|khronos
  local which=$1 w wp cp prev="" sum i
  "$XKEY" watch 65 60 > "$TEST_TMPDIR/xkey.$which" &
  wp=$!
  for _ in $(seq 200); do grep -q ready "$TEST_TMPDIR/xkey.$which" 2>/dev/null && break; sleep 0.05; done
  client "$which" -- timeout 120 vkcube --c "$FRAMES" > "$OUT/vkcube_$which.log" 2>&1 &
  cp=$!
  wait "$wp" || { echo "FAIL: no vkcube window ($which)"; kill "$cp" 2>/dev/null; cat "$OUT/vkcube_$which.log"; exit 1; }
  w=$(tail -1 "$TEST_TMPDIR/xkey.$which")
  for i in $(seq 100); do
    sleep 0.2
    xwd -silent -id "$w" > "$TEST_TMPDIR/$which.xwd"
    sum=$(md5sum < "$TEST_TMPDIR/$which.xwd")
    [ "$sum" = "$prev" ] && break
    prev=$sum
  done
  convert "$TEST_TMPDIR/$which.xwd" "$OUT/vkcube_$which.png"
  "$XKEY" send "$w" 65
  local rc=0
  wait "$cp" || rc=$?
  echo "$which: window $w stable after $i captures; vkcube exit status $rc"
  [ "$rc" -eq 0 ] || { echo "FAIL: vkcube through $which exited $rc"; cat "$OUT/vkcube_$which.log"; exit 1; }
}

shot ours
shot khronos
grep -q llvmpipe "$OUT/vkcube_ours.log" || { echo "FAIL: vkcube did not select lavapipe through our loader"; exit 1; }

size=$(identify -format '%w %h' "$OUT/vkcube_ours.png")
pixels=$(( ${size% *} * ${size#* } ))
ae=$(compare -metric AE -fuzz 2% "$OUT/vkcube_ours.png" "$OUT/vkcube_khronos.png" "$OUT/vkcube_diff.png" 2>&1 || true)
colours=$(identify -format '%k' "$OUT/vkcube_ours.png")
stats_ours=$(identify -format 'mean=%[fx:mean] sd=%[fx:standard_deviation]' "$OUT/vkcube_ours.png")
stats_khr=$(identify -format 'mean=%[fx:mean] sd=%[fx:standard_deviation]' "$OUT/vkcube_khronos.png")
limit=$(( pixels / 200 ))
{
  echo "frames=$FRAMES size=${size/ /x} pixels=$pixels"
  echo "differing_pixels(AE, fuzz 2%)=$ae limit=$limit"
  echo "colours(ours)=$colours"
  echo "ours:    $stats_ours"
  echo "khronos: $stats_khr"
} | tee "$OUT/vkcube_compare.txt"
[[ "$ae" =~ ^[0-9]+$ ]] || { echo "FAIL: compare did not give a pixel count: $ae"; exit 1; }
[ "$colours" -gt 100 ] || { echo "FAIL: the picture is (nearly) blank"; exit 1; }
[ "$ae" -le "$limit" ] || { echo "FAIL: screenshots differ in $ae pixels (limit $limit)"; exit 1; }
echo "PASS: vkcube through our loader and through Khronos: $ae differing pixels of $pixels"
