#!/usr/bin/env bash
# 16 threads create/destroy instances and devices and call dispatch concurrently through our
# libvulkan.so.1: with the mock ICD, then with Mesa's lavapipe. Under --config=tsan the loader, the
# mock and threads_stress are instrumented and any ThreadSanitizer report fails the test; in the
# normal build it is a plain stress test.
set -euo pipefail
R="$TEST_SRCDIR/$TEST_WORKSPACE"
LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$LVP" ] || { echo "FAIL: lavapipe missing (mesa-vulkan-drivers via ci/bootstrap)"; exit 1; }
ITER=${THREADS_ITERATIONS:-10}
d="$TEST_TMPDIR/mock"
mkdir -p "$d"
cp "$R/mock_icd/libmock_icd_v7_exports.so" "$d/"
chmod u+w "$d/libmock_icd_v7_exports.so"
echo '{"record_lookups": false, "api_version": "1.3.0"}' > "$d/libmock_icd_v7_exports.so.scenario"
printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' \
  "$d/libmock_icd_v7_exports.so" > "$d/mock.json"
status=0
run() {  # run NAME MANIFEST [TSAN_SUPPRESSIONS]
  local log="$TEST_TMPDIR/$1.log" rc=0 supp=""
  [ -n "${3:-}" ] && supp=":suppressions=$3"
  # ASLR off: GCC 12's TSan runtime cannot map its shadow with the kernel's default mmap entropy.
  env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" VK_DRIVER_FILES="$2" VK_LOADER_LAYERS_DISABLE='~implicit~' \
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0$supp" \
    setarch "$(uname -m)" -R "$R/conformance/real/threads_stress" --loader="$R/loader/libvulkan.so.1" \
    --threads=16 --iterations="$ITER" > "$log" 2>&1 || rc=$?
  grep -v "^ThreadSanitizer: matched\|^Used suppressions\|^ *[0-9]* race:" "$log" | tail -3
  if [ "$rc" -ne 0 ] || grep -q "ThreadSanitizer" "$log"; then
    echo "FAIL: $1 (exit $rc)"; grep -m1 -A40 "WARNING: ThreadSanitizer" "$log" || tail -40 "$log"; status=1
  else
    echo "PASS: $1"
  fi
}
run mock "$d/mock.json"
run lavapipe "$LVP" "$R/conformance/real/threads_tsan_lavapipe.supp"
tsan=no
if nm -D "$R/conformance/real/threads_stress" 2>/dev/null | grep -q __tsan_init || ldd "$R/conformance/real/threads_stress" | grep -q libtsan; then tsan=yes; fi
echo "ThreadSanitizer instrumentation: $tsan"
exit $status
