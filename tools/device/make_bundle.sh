#!/usr/bin/env bash
# Assembles everything needed to run our loader on a machine without Debian packages (the GPU
# machine): the loader, its one shared-library dependency (libcjson.so.1), the compute smoke test,
# a mock ICD with its manifest and scenario, ldp-check when built, and run.sh.
#   tools/device/make_bundle.sh [OUT_DIR]   (default: device_bundle/, git-ignored)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/device_bundle}
cd "$top"
targets=(//loader:libvulkan.so.1 //conformance/real:compute_smoke //mock_icd:libmock_icd_v7_exports.so)
have_ldp=0
if bazel query //conformance/driver:ldp-check >/dev/null 2>&1; then targets+=(//conformance/driver:ldp-check); have_ldp=1; fi
bazel build "${targets[@]}" >/dev/null
bin=$(bazel info bazel-bin 2>/dev/null)
rm -rf "$out"
mkdir -p "$out/mock"
cp "$bin/loader/libvulkan.so.1" "$bin/conformance/real/compute_smoke" "$out/"
cp -L /usr/lib/x86_64-linux-gnu/libcjson.so.1 "$out/"
# NVIDIA's Vulkan driver dlopens libglvnd's libEGL.so.1 during interface negotiation and fails it
# with VK_ERROR_INITIALIZATION_FAILED when it is missing (the GPU machine's container has none).
mkdir -p "$out/glvnd"
cp -L /usr/lib/x86_64-linux-gnu/libEGL.so.1 /usr/lib/x86_64-linux-gnu/libGLdispatch.so.0 "$out/glvnd/"
cp "$bin/mock_icd/libmock_icd_v7_exports.so" "$out/mock/"
[ "$have_ldp" = 1 ] && cp "$bin/conformance/driver/ldp-check" "$out/"
cat > "$out/mock/mock_icd.json" <<'JSON'
{"file_format_version": "1.0.1",
 "ICD": {"library_path": "./libmock_icd_v7_exports.so", "api_version": "1.3.0", "library_arch": "64"}}
JSON
cat > "$out/mock/libmock_icd_v7_exports.so.scenario" <<'JSON'
{"physical_devices": [{"name": "Mock Device beside NVIDIA", "device_type": "virtual", "vendor_id": 4096,
                       "device_id": 4660}]}
JSON
cp "$top/tools/device/run.sh" "$out/"
chmod +x "$out/run.sh"
echo "bundle in $out:"; ls -la "$out" "$out/mock"
