#!/usr/bin/env bash
# Runs on the GPU machine from the bundle directory (see make_bundle.sh). Prints everything and
# writes into $OUT (default: a fresh /tmp/ldp-out.XXXXXX):
#   run.log                          this whole output
#   nvidia.{txt,json,junit.xml}      ldp-check on the NVIDIA manifest (table, JSON, JUnit)
#   nvidia-no-egl.{txt,json}         the same without the bundled libEGL.so.1 (the machine as it comes)
#   installed.{txt,json,junit.xml}   ldp-check --installed (every manifest the default search finds)
#   ldp-check-exit.txt               ldp-check's exit status of each run
# A missing NVIDIA manifest is reported and its runs are skipped; --installed still runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=${OUT:-$(mktemp -d /tmp/ldp-out.XXXXXX)}
mkdir -p "$o"
# The C++ runtime of the bundle only where the machine has none.
cxx=""
if ! ldconfig -p 2>/dev/null | grep -q 'libstdc++\.so\.6 '; then cxx=":$here/cxxrt"; fi
base_path="$here$cxx"
export LD_LIBRARY_PATH="$base_path:$here/glvnd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
NV=${NV_ICD:-}
if [ -z "$NV" ]; then
  NV=/usr/share/vulkan/icd.d/nvidia_icd.json
  for c in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
           /usr/local/share/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$c" ]; then NV=$c; break; fi
  done
fi
have_nv=0
[ -f "$NV" ] && have_nv=1
main() {
echo "== machine"; uname -a
if command -v nvidia-smi >/dev/null; then nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 | head -3; else echo "no nvidia-smi"; fi
echo "== reports go to $o"
echo "== bundle libraries: C++ runtime from ${cxx:+the bundle}${cxx:-the system}; unresolved dependencies:"
for f in "$here/ldp-check" "$here/compute_smoke" "$here/libvulkan.so.1" "$here/libmock_icd_v7.so"; do
  ldd "$f" 2>&1 | grep -i 'not found' | sed "s|^|  $(basename "$f"): |"
done
echo "  (none listed above: all resolved)"
echo "== nvidia manifest ($NV)"
if [ "$have_nv" = 1 ]; then
  cat "$NV"
else
  echo "NVIDIA manifest $NV not found: its runs are skipped (set NV_ICD=PATH to point at it)"
  echo "manifest $NV not found" > "$o/nvidia-missing.txt"
fi
echo "== system loader"; ls -la /usr/lib/x86_64-linux-gnu/libvulkan.so* /usr/lib64/libvulkan.so* 2>&1 | head
if [ "$have_nv" = 1 ]; then
  echo "== 0. NVIDIA without libEGL.so.1 (as the machine comes): what our loader logs"
  LD_LIBRARY_PATH="$base_path" VK_DRIVER_FILES="$NV" VK_LOADER_DEBUG=error "$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=64; echo "exit: $?"
  echo "== 1. NVIDIA alone through our loader: enumerate, instance, device, compute dispatch"
  VK_DRIVER_FILES="$NV" VK_LOADER_DEBUG=warn "$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=1048576; echo "exit: $?"
  echo "== 2. NVIDIA beside the mock ICD: both drivers' devices appear; dispatch on the H100"
  VK_DRIVER_FILES="$NV:$here/mock/mock_icd.json" VK_LOADER_DEBUG=warn "$here/compute_smoke" --loader="$here/libvulkan.so.1" --device=H100 --elements=1048576; echo "exit: $?"
fi
echo "== 3. the default search (no override) through our loader"
"$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=65536; echo "exit: $?"
if [ "$have_nv" = 1 ]; then
  echo "== 4. loader debug log (driver category) for the NVIDIA load"
  VK_DRIVER_FILES="$NV" VK_LOADER_DEBUG=driver,info "$here/compute_smoke" --loader="$here/libvulkan.so.1" --elements=64 2>&1 | head -20
  for sys in /usr/lib/x86_64-linux-gnu/libvulkan.so.1 /usr/lib64/libvulkan.so.1 "$here/libvulkan_khronos.so.1"; do
    if [ -f "$sys" ]; then
      echo "== 5. the same dispatch through the system loader $sys, for comparison"
      VK_DRIVER_FILES="$NV" "$here/compute_smoke" --loader="$sys" --elements=1048576; echo "exit: $?"
      break
    fi
  done
fi
ldp() { "$here/ldp-check" --loader="$here/libvulkan.so.1" --mock="$here/libmock_icd_v7.so" "$@"; }
# ldp_report NAME ARGS...: table, JSON and JUnit reports of one ldp-check invocation.
ldp_report() {
  local name=$1; shift
  ldp "$@" > "$o/$name.txt"; local rc=$?
  cat "$o/$name.txt"
  echo "$name.txt: exit $rc" | tee -a "$o/ldp-check-exit.txt"
  ldp --format=json --output="$o/$name.json" "$@"
  echo "$name.json: exit $?" | tee -a "$o/ldp-check-exit.txt"
  ldp --format=junit --output="$o/$name.junit.xml" "$@"
  echo "$name.junit.xml: exit $?" | tee -a "$o/ldp-check-exit.txt"
}
if [ "$have_nv" = 1 ]; then
  echo "== 6. ldp-check on NVIDIA's driver"
  ldp_report nvidia "$NV"
  echo "== 7. ldp-check on NVIDIA's driver without libEGL.so.1 (the machine as it comes)"
  LD_LIBRARY_PATH="$base_path" ldp "$NV" > "$o/nvidia-no-egl.txt"; rc=$?
  cat "$o/nvidia-no-egl.txt"; echo "nvidia-no-egl.txt: exit $rc" | tee -a "$o/ldp-check-exit.txt"
  LD_LIBRARY_PATH="$base_path" ldp --format=json --output="$o/nvidia-no-egl.json" "$NV"
  echo "nvidia-no-egl.json: exit $?" | tee -a "$o/ldp-check-exit.txt"
fi
echo "== 8. ldp-check --installed (every driver manifest the default search finds)"
ldp_report installed --installed
echo "== reports in $o:"; ls -la "$o"
}
main 2>&1 | tee "$o/run.log"
exit 0
