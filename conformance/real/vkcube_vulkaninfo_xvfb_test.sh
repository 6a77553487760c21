#!/usr/bin/env bash
# vulkaninfo with DISPLAY set (Xvfb): its "Presentable Surfaces" section creates xcb/xlib surfaces and
# queries lavapipe through them. Through our loader the full text report must equal Debian's Khronos
# loader's except for lines naming the loader's own version. Layers hidden as in vulkaninfo_test.sh.
set -euo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/conformance/real/vkcube_lib.sh"
start_xvfb
empty="$TEST_TMPDIR/empty"
mkdir -p "$empty"
NOLAYERS=(VK_LAYER_PATH="$empty" VK_IMPLICIT_LAYER_PATH="$empty" VK_LOADER_LAYERS_DISABLE='~implicit~')
for which in ours khronos; do
  client "$which" "${NOLAYERS[@]}" -- timeout 120 vulkaninfo > "$OUT/vulkaninfo_xvfb_$which.txt" 2> "$OUT/vulkaninfo_xvfb_$which.stderr"
done
for which in ours khronos; do
  grep -q "Presentable Surfaces" "$OUT/vulkaninfo_xvfb_$which.txt" || { echo "FAIL: no surface section ($which)"; exit 1; }
done
n=$(grep -m1 "Surface types: count" "$OUT/vulkaninfo_xvfb_ours.txt" | grep -o "[0-9]*$" || true)
echo "surface types through our loader: $n"
[ "$n" -ge 1 ] || { echo "FAIL: no surface type listed"; exit 1; }
# What may differ between the loaders: the line naming the loader's own version, and
# VK_LUNARG_direct_driver_loading, a loader extension Debian's 1.3.239 predates (listed by newer
# Khronos loaders; conformance/deviations/khronos.tsv), with the instance-extension count it adds to.
norm() { grep -v "Vulkan Instance Version" "$1" | sed -e '/VK_LUNARG_direct_driver_loading/d' -e 's/^\(Instance Extensions: count = \)[0-9]*$/\1N/'; }
normjson() { sed -e '/"VK_LUNARG_direct_driver_loading"/d' "$1"; }
if ! diff <(norm "$OUT/vulkaninfo_xvfb_ours.txt") <(norm "$OUT/vulkaninfo_xvfb_khronos.txt") > "$OUT/vulkaninfo_xvfb.diff"; then
  echo "FAIL: vulkaninfo under Xvfb differs:"; head -50 "$OUT/vulkaninfo_xvfb.diff"; exit 1
fi
echo "PASS: vulkaninfo under Xvfb ($(wc -l < "$OUT/vulkaninfo_xvfb_ours.txt") lines, $n surface types) identical"
