#!/usr/bin/env bash
# Assembles everything needed to run our loader and ldp-check on a machine without Debian packages
# (the GPU machine) into one directory:
#   ldp-check                 the driver policy checker (RPATH $ORIGIN: finds libcjson.so.1 beside it)
#   libvulkan.so.1            our loader (ldp-check's LDP_DRIVER_1 runs drivers through it)
#   libmock_icd_v7.so         ldp-check's LDP_DRIVER_1 partner driver (its default --mock)
#   compute_smoke             the compute smoke test (instance, device, dispatch)
#   vkprobe                   the conformance suite's scripted client (apiVersion checks and the like)
#   gpu_timing, gpu_timing.sh start-up and per-call wall times, our loader vs Khronos (bench/gpu_timing.c)
#   instance_commands.txt     the instance-level commands our loader looks up in each driver instance
#                             (gpu_timing --mode=floor-parts)
#   libcjson.so.1             the one dependency of all of the above beyond glibc and the C++ runtime
#   libvulkan_khronos.so.1    Debian's Khronos loader, for comparison (when installed here)
#   libvulkan_newest.so.1     the newest Khronos loader built from its fetched sources, when
#                             KHRONOS_NEWEST names it (../shared/khronos_suite/README.md builds it)
#   cxxrt/                    libstdc++.so.6, libgcc_s.so.1 (ldp-check and compute_smoke are linked by
#                             g++); run.sh uses them only when the machine has no libstdc++.so.6
#   glvnd/                    libEGL.so.1, libGLdispatch.so.0: NVIDIA's driver dlopens libglvnd's
#                             libEGL.so.1 during interface negotiation (the GPU container has none)
#   mock/                     a mock ICD with its manifest and scenario (a second driver for the loader)
#   run.sh                    what runs there
# and then checks with ldd that every ELF file in the bundle resolves every dependency inside the
# bundle or in glibc.
#   tools/device/make_bundle.sh [OUT_DIR]     (default: device_bundle/, git-ignored)
# BAZEL_STARTUP (e.g. "--output_base=/root/.cache/bazel-me") and BAZEL_FLAGS (e.g.
# "--symlink_prefix=/ --jobs=2") are passed to bazel.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/device_bundle}
cd "$top"
# shellcheck disable=SC2086
bz() { bazel ${BAZEL_STARTUP:-} "$@"; }
targets=(//loader:libvulkan.so.1 //conformance/real:compute_smoke //conformance/driver:ldp-check
         //mock_icd:libmock_icd_v7.so //mock_icd:libmock_icd_v7_exports.so //conformance/framework:vkprobe
         //bench:gpu_timing)
# shellcheck disable=SC2086
bz build ${BAZEL_FLAGS:-} "${targets[@]}" 2>&1 | grep -v 'linux-sandbox' | grep -E '^(ERROR|FAILED)' || true
# shellcheck disable=SC2086
bin=$(bz info ${BAZEL_FLAGS:-} bazel-bin 2>/dev/null)
for f in loader/libvulkan.so.1 conformance/real/compute_smoke conformance/driver/ldp-check \
         mock_icd/libmock_icd_v7.so mock_icd/libmock_icd_v7_exports.so conformance/framework/vkprobe \
         bench/gpu_timing; do
  [ -f "$bin/$f" ] || { echo "make_bundle: $bin/$f was not built" >&2; exit 1; }
done
lib=/usr/lib/x86_64-linux-gnu
rm -rf "$out"
mkdir -p "$out/mock" "$out/glvnd" "$out/cxxrt"
cp "$bin/loader/libvulkan.so.1" "$bin/conformance/real/compute_smoke" "$bin/conformance/driver/ldp-check" \
   "$bin/mock_icd/libmock_icd_v7.so" "$bin/conformance/framework/vkprobe" "$bin/bench/gpu_timing" "$out/"
cp -L "$lib/libcjson.so.1" "$out/"
[ -f "$lib/libvulkan.so.1" ] && cp -L "$lib/libvulkan.so.1" "$out/libvulkan_khronos.so.1"
if [ -n "${KHRONOS_NEWEST:-}" ]; then cp -L "$KHRONOS_NEWEST" "$out/libvulkan_newest.so.1"; fi
cp -L "$lib/libstdc++.so.6" "$lib/libgcc_s.so.1" "$out/cxxrt/"
cp -L "$lib/libEGL.so.1" "$lib/libGLdispatch.so.0" "$out/glvnd/"
cp "$bin/mock_icd/libmock_icd_v7_exports.so" "$out/mock/"
chmod -R u+w "$out"
cat > "$out/mock/mock_icd.json" <<'JSON'
{"file_format_version": "1.0.1",
 "ICD": {"library_path": "./libmock_icd_v7_exports.so", "api_version": "1.3.0", "library_arch": "64"}}
JSON
cat > "$out/mock/libmock_icd_v7_exports.so.scenario" <<'JSON'
{"physical_devices": [{"name": "Mock Device beside NVIDIA", "device_type": "virtual", "vendor_id": 4096,
                       "device_id": 4660}]}
JSON
# The instance-level commands our loader looks up in each driver instance (the generated dispatch
# fill), for gpu_timing --mode=floor-parts.
awk '/^void vkl_gen_instance_dispatch_fill/,/^}/' "$bin/loader/vkl_gen_dispatch.c" |
  grep -o 'gipa(instance, "vk[A-Za-z0-9]*")' | grep -o 'vk[A-Za-z0-9]*' > "$out/instance_commands.txt"
[ -s "$out/instance_commands.txt" ] || { echo "make_bundle: no instance commands in vkl_gen_dispatch.c" >&2; exit 1; }
cp "$top/tools/device/run.sh" "$top/tools/device/gpu_timing.sh" "$out/"
chmod +x "$out/run.sh" "$out/gpu_timing.sh"

# Every dependency of every ELF file must resolve inside the bundle or to glibc.
glibc='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libresolv\.so\.2)$'
bad=0
while IFS= read -r f; do
  file -L "$f" | grep -q ELF || continue
  while read -r name _ path _; do
    [ -n "$name" ] || continue
    if [[ "$name" =~ $glibc || "$name" == /* ]]; then continue; fi
    case "$path" in
      "$out"/*) ;;
      *) echo "make_bundle: $f needs $name, resolved outside the bundle ($path)" >&2; bad=1 ;;
    esac
  done < <(LD_LIBRARY_PATH="$out:$out/glvnd:$out/cxxrt" ldd "$f" 2>/dev/null | sed 's/^[[:space:]]*//')
done < <(find "$out" -type f)
[ "$bad" = 0 ] || { echo "make_bundle: the bundle is incomplete" >&2; exit 1; }
echo "bundle in $out ($(du -sh "$out" | cut -f1)); every ELF dependency resolves inside it or to glibc:"
(cd "$out" && find . -type f | sort | xargs ls -la)
