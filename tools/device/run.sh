#!/usr/bin/env bash
# Runs on the GPU machine from the bundle directory (see make_bundle.sh). Prints everything.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here:$here/glvnd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
NV=${NV_ICD:-/usr/share/vulkan/icd.d/nvidia_icd.json}
echo "== machine"; uname -a; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 | head -3
echo "== nvidia manifest ($NV)"; cat "$NV" 2>&1
echo "== system loader"; ls -la /usr/lib/x86_64-linux-gnu/libvulkan.so* /usr/lib64/libvulkan.so* 2>&1 | head
echo "== 0. NVIDIA without libEGL.so.1 (as the machine comes): what our loader logs"
LD_LIBRARY_PATH="$here" VK_DRIVER_FILES="$NV" VK_LOADER_DEBUG=error "$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=64; echo "exit: $?"
echo "== 1. NVIDIA alone through our loader: enumerate, instance, device, compute dispatch"
VK_DRIVER_FILES="$NV" VK_LOADER_DEBUG=warn "$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=1048576; echo "exit: $?"
echo "== 2. NVIDIA beside the mock ICD: both drivers' devices appear; dispatch on the H100"
VK_DRIVER_FILES="$NV:$here/mock/mock_icd.json" VK_LOADER_DEBUG=warn "$here/compute_smoke" --loader="$here/libvulkan.so.1" --device=H100 --elements=1048576; echo "exit: $?"
echo "== 3. the default search (no override) through our loader"
"$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=65536; echo "exit: $?"
echo "== 4. loader debug log (driver category) for the NVIDIA load"
VK_DRIVER_FILES="$NV" VK_LOADER_DEBUG=driver,info "$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=64 2>&1 | head -20
for sys in /usr/lib/x86_64-linux-gnu/libvulkan.so.1 /usr/lib64/libvulkan.so.1 "$here/libvulkan_khronos.so.1"; do
  if [ -f "$sys" ]; then
    echo "== 5. the same dispatch through the system loader $sys, for comparison"
    VK_DRIVER_FILES="$NV" "$here/compute_smoke" --loader="$sys" --elements=1048576; echo "exit: $?"
    break
  fi
done
if [ -x "$here/ldp-check" ]; then
  echo "== 6. ldp-check on NVIDIA's driver"
  o=${OUT:-/tmp}
  "$here/ldp-check" --loader="$here/libvulkan.so.1" --mock="$here/mock/libmock_icd_v7_exports.so" "$NV" | tee "$o/nvidia.txt"
  echo "exit: ${PIPESTATUS[0]}"
  "$here/ldp-check" --loader="$here/libvulkan.so.1" --mock="$here/mock/libmock_icd_v7_exports.so" --format=json --output="$o/nvidia.json" "$NV"
  echo "== 7. ldp-check on NVIDIA's driver without libEGL.so.1 (the machine as it comes)"
  LD_LIBRARY_PATH="$here" "$here/ldp-check" --loader="$here/libvulkan.so.1" --mock="$here/mock/libmock_icd_v7_exports.so" "$NV" | tee "$o/nvidia-no-egl.txt"
fi
exit 0
