#!/usr/bin/env bash
# A compute dispatch through our libvulkan.so.1 with Mesa's lavapipe writes the expected buffer.
set -euo pipefail
LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$LVP" ] || { echo "FAIL: lavapipe missing (mesa-vulkan-drivers via ci/bootstrap)"; exit 1; }
r="$TEST_SRCDIR/$TEST_WORKSPACE"
preload=$(ldd "$r/loader/libvulkan.so.1" | awk '/libasan/ {print $3}')
out=$(env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" LD_PRELOAD="$preload" \
  ASAN_OPTIONS=detect_leaks=0 VK_DRIVER_FILES="$LVP" \
  "$r/conformance/real/compute_smoke" --loader="$r/loader/libvulkan.so.1" --elements=65536)
echo "$out"
grep -q "^result: PASS" <<<"$out"
grep -q "llvmpipe" <<<"$out"
