#!/usr/bin/env bash
# LDP_LOADER_6 read with the Vulkan specification (conformance/policies/readings.md): an application
# asking for apiVersion 1.4, 1.9 or 2.0 on Mesa's lavapipe (a Vulkan 1.3 driver) gets VK_SUCCESS and
# lavapipe's device, through our libvulkan.so.1 and through Debian's Khronos loader alike.
set -euo pipefail
LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$LVP" ] || { echo "FAIL: lavapipe missing (mesa-vulkan-drivers via ci/bootstrap)"; exit 1; }
r="$TEST_SRCDIR/$TEST_WORKSPACE"
probe="$r/conformance/framework/vkprobe"
ours="$r/loader/libvulkan.so.1"
khronos=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
preload=$(ldd "$ours" | awk '/libasan/ {print $3}')
fail=0
for loader in "$ours" "$khronos"; do
  [ -f "$loader" ] || { echo "FAIL: $loader missing"; fail=1; continue; }
  for api in 1.3 1.4 1.9 2.0; do
    out=$(env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
      VK_DRIVER_FILES="$LVP" "$probe" --loader="$loader" "create-instance:api=$api" devices destroy-instance 2>&1) || true
    create=$(grep -o '"step":"create-instance"[^}]*"result":"[A-Z_]*"' <<<"$out" | grep -o 'VK_[A-Z_]*' | tail -1)
    if [ "$create" != "VK_SUCCESS" ] || ! grep -q 'llvmpipe' <<<"$out"; then
      echo "FAIL: $loader apiVersion $api: vkCreateInstance ${create:-<none>} (want VK_SUCCESS and llvmpipe)"
      echo "$out" | head -20
      fail=1
    else
      echo "ok: $loader apiVersion $api: VK_SUCCESS, llvmpipe listed"
    fi
  done
done
exit $fail
