#!/usr/bin/env bash
# The Khronos validation layer (Debian's vulkan-validationlayers) through our loader, as through
# Debian's Khronos loader, with lavapipe under Xvfb, enabled by VK_INSTANCE_LAYERS:
#  - vkcube --c N (a correct application): exit 0, no validation error;
#  - vkcube --force_errors (deliberate misuse): the layer reports it, with the same set of VUIDs
#    through both loaders;
#  - vulkaninfo (surface sections included, DISPLAY set): exit 0, no validation error.
# (The debug-messenger test of real layers is validation_messenger_test.sh; this one is about real clients.)
set -euo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/conformance/real/vkcube_lib.sh"
[ -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ] ||
  { echo "FAIL: validation layer missing (vulkan-validationlayers via ci/bootstrap)"; exit 1; }
start_xvfb
VAL=(VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation)
status=0

for which in ours khronos; do
  rc=0
  client "$which" "${VAL[@]}" VK_LOADER_DEBUG=layer -- timeout 300 vkcube --c 20 > "$OUT/vkcube_validation_$which.log" 2>&1 || rc=$?
  n=$(grep -c "Validation Error" "$OUT/vkcube_validation_$which.log" || true)
  echo "$which: vkcube --c 20 with validation: exit $rc, $n validation errors"
  [ "$rc" -eq 0 ] || { echo "FAIL: vkcube exited $rc through $which"; tail -20 "$OUT/vkcube_validation_$which.log"; status=1; }
  [ "$n" -eq 0 ] || { echo "FAIL: validation errors from a correct application through $which"; grep -m5 "Validation Error" "$OUT/vkcube_validation_$which.log"; status=1; }
  grep -qi "VK_LAYER_KHRONOS_validation" "$OUT/vkcube_validation_$which.log" ||
    { echo "FAIL: the loader log does not mention the validation layer ($which)"; status=1; }

  rc=0
  client "$which" "${VAL[@]}" -- timeout 300 vkcube --c 5 --force_errors > "$OUT/vkcube_force_errors_$which.log" 2>&1 || rc=$?
  grep -o "VUID-[A-Za-z0-9_-]*" "$OUT/vkcube_force_errors_$which.log" | sort -u > "$OUT/vkcube_force_errors_$which.vuids" || true
  echo "$which: vkcube --force_errors: exit $rc, VUIDs: $(tr '\n' ' ' < "$OUT/vkcube_force_errors_$which.vuids")"
  [ -s "$OUT/vkcube_force_errors_$which.vuids" ] || { echo "FAIL: the deliberate misuse was not reported through $which"; status=1; }

  rc=0
  client "$which" "${VAL[@]}" -- timeout 300 vulkaninfo > "$OUT/vulkaninfo_validation_$which.txt" 2> "$OUT/vulkaninfo_validation_$which.stderr" || rc=$?
  n=$(cat "$OUT/vulkaninfo_validation_$which."{txt,stderr} | grep -c "Validation Error" || true)
  echo "$which: vulkaninfo with validation: exit $rc, $n validation errors"
  [ "$rc" -eq 0 ] && [ "$n" -eq 0 ] || { echo "FAIL: vulkaninfo with validation through $which"; tail -20 "$OUT/vulkaninfo_validation_$which.stderr"; status=1; }
  grep -q "Presentable Surfaces" "$OUT/vulkaninfo_validation_$which.txt" ||
    { echo "FAIL: no surface section in vulkaninfo through $which"; status=1; }
done

if ! diff "$OUT/vkcube_force_errors_ours.vuids" "$OUT/vkcube_force_errors_khronos.vuids"; then
  echo "FAIL: the validation layer reported different VUIDs through the two loaders"; status=1
fi
[ $status -eq 0 ] && echo "PASS: validation layer through our loader as through Khronos"
exit $status
