# Sourced by the vkcube_* / Xvfb tests: our loader under two names, the sanitizer preload, a private
# Xvfb on a free display (Xvfb -displayfd picks it), killed when the test exits; -noreset: without it
# the server resets when its last client disconnects and a client connecting during the reset fails
# ("XCB failed to connect"; seen 1 in 3 runs of vkcube_validation_test).
LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
KHRONOS=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
for tool in Xvfb vkcube vulkaninfo xwd convert compare; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool missing (xvfb, vulkan-tools, x11-apps, imagemagick via ci/bootstrap)"; exit 1; }
done
[ -f "$LVP" ] && [ -f "$KHRONOS" ] || { echo "FAIL: lavapipe / libvulkan1 missing (ci/bootstrap)"; exit 1; }

R="$TEST_SRCDIR/$TEST_WORKSPACE"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}"
mkdir -p "$OUT"
OURS_DIR="$TEST_TMPDIR/ourloader"
mkdir -p "$OURS_DIR"
cp "$R/loader/libvulkan.so.1" "$OURS_DIR/libvulkan.so.1"
ln -sf libvulkan.so.1 "$OURS_DIR/libvulkan.so"  # vulkaninfo dlopens libvulkan.so first
# Under --config=asan our loader needs the ASan runtime first in the uninstrumented clients.
PRELOAD=$(ldd "$R/loader/libvulkan.so.1" | awk '/libasan|libtsan/ {print $3}' | tr '\n' ':')

XVFB_PID=""
cleanup_xvfb() { [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup_xvfb EXIT

start_xvfb() {
  local fdfile="$TEST_TMPDIR/xvfb.display"
  : > "$fdfile"
  Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp -noreset 3>"$fdfile" >"$OUT/xvfb.log" 2>&1 &
  XVFB_PID=$!
  for _ in $(seq 100); do [ -s "$fdfile" ] && break; sleep 0.1; done
  [ -s "$fdfile" ] || { echo "FAIL: Xvfb did not start"; cat "$OUT/xvfb.log"; exit 1; }
  export DISPLAY=":$(tr -d '\n' < "$fdfile")"
  echo "Xvfb on $DISPLAY (pid $XVFB_PID)"
}

# client LOADER(ours|khronos) [ENV=VALUE...] -- COMMAND...: a clean environment, lavapipe only.
client() {
  local which=$1; shift
  local ldp="" pre=""
  if [ "$which" = ours ]; then ldp="$OURS_DIR"; pre="$PRELOAD"; fi
  local extra=()
  while [ "$1" != "--" ]; do extra+=("$1"); shift; done
  shift
  env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" XDG_RUNTIME_DIR="$TEST_TMPDIR" DISPLAY="$DISPLAY" \
    LD_PRELOAD="$pre" LD_LIBRARY_PATH="$ldp" VK_DRIVER_FILES="$LVP" \
    ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" TSAN_OPTIONS="report_signal_unsafe=0" \
    "${extra[@]}" "$@"
}
