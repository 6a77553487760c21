#!/usr/bin/env bash
# Real layers: Debian's Khronos validation layer, enabled by the application
# (VkInstanceCreateInfo) and by VK_INSTANCE_LAYERS, reports a deliberate API misuse
# (vkCreateBuffer with size 0: VUID-VkBufferCreateInfo-size-00912) to the application's
# debug-utils messenger, and reports nothing for the correct calls, through our loader as through
# Debian's Khronos loader, with Mesa's lavapipe. Layers are found only through VK_LAYER_PATH (the
# validation layer's own directory) so no other installed layer takes part.
set -euo pipefail
LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
VALDIR=/usr/share/vulkan/explicit_layer.d
KHRONOS=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
[ -f "$LVP" ] || { echo "FAIL: lavapipe missing (mesa-vulkan-drivers via ci/bootstrap)"; exit 1; }
[ -f "$VALDIR/VkLayer_khronos_validation.json" ] || { echo "FAIL: validation layer missing (vulkan-validationlayers via ci/bootstrap)"; exit 1; }
[ -f "$KHRONOS" ] || { echo "FAIL: Debian's Khronos loader missing (libvulkan1 via ci/bootstrap)"; exit 1; }
r="$TEST_SRCDIR/$TEST_WORKSPACE"
prog="$r/conformance/real/validation_messenger"
ours="$r/loader/libvulkan.so.1"
preload=$(ldd "$ours" | awk '/libasan/ {print $3}')
OUT=${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}
status=0

run() {  # run LOADER_LABEL MODE [ENV...]
  local which=$1 mode=$2; shift 2
  local lib=$ours; [ "$which" = khronos ] && lib=$KHRONOS
  local log="$OUT/validation_messenger.$which.$mode.log" rc=0
  env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
    VK_DRIVER_FILES="$LVP" VK_LAYER_PATH="$VALDIR" XDG_CONFIG_HOME="$TEST_TMPDIR/none" \
    XDG_DATA_HOME="$TEST_TMPDIR/none" XDG_CONFIG_DIRS="$TEST_TMPDIR/none" XDG_DATA_DIRS="$TEST_TMPDIR/none" "$@" \
    "$prog" --loader="$lib" --enable="$mode" > "$log" 2>&1 || rc=$?
  local summary; summary=$(grep '^summary:' "$log" || true)
  echo "$which/$mode: exit $rc; $summary"
  if [ "$rc" -ne 0 ] || [ -z "$summary" ]; then echo "FAIL($which/$mode): the program failed"; tail -20 "$log"; status=1; return; fi
  grep -q ' errors_correct=0 ' <<<"$summary" || { echo "FAIL($which/$mode): validation errors from correct calls"; grep '^message phase=correct' "$log" | head -5; status=1; }
  grep -q ' create_destroy_errors=0 ' <<<"$summary" || { echo "FAIL($which/$mode): validation errors during create/destroy"; status=1; }
  grep -q '^message phase=misuse id=VUID-VkBufferCreateInfo-size-00912$' "$log" ||
    { echo "FAIL($which/$mode): the misuse was not reported to the messenger as VUID-VkBufferCreateInfo-size-00912"; grep '^message' "$log" | head -5; status=1; }
  grep '^message phase=misuse' "$log" | sort -u > "$OUT/validation_messenger.$which.$mode.ids"
}

for which in ours khronos; do
  run "$which" app
  run "$which" env VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
done
for mode in app env; do
  diff "$OUT/validation_messenger.ours.$mode.ids" "$OUT/validation_messenger.khronos.$mode.ids" ||
    { echo "FAIL($mode): different messages through the two loaders"; status=1; }
done
# Without the layer nothing reports the misuse: the messages above come from the layer.
rc=0
env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
  VK_DRIVER_FILES="$LVP" VK_LAYER_PATH="$TEST_TMPDIR/none" "$prog" --loader="$ours" --enable=env \
  > "$OUT/validation_messenger.ours.nolayer.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] || grep -q '^message phase=misuse' "$OUT/validation_messenger.ours.nolayer.log"; then
  echo "FAIL: without the layer: exit $rc or a misuse message appeared"; status=1
fi
echo "ours/no layer: exit $rc; $(grep '^summary:' "$OUT/validation_messenger.ours.nolayer.log" || true)"
[ $status -eq 0 ] && echo "PASS: the validation layer reports the misuse to the messenger through both loaders, enabled both ways"
exit $status
