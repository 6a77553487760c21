#!/usr/bin/env bash
# Real driver, real client: Debian's vulkaninfo with Mesa's lavapipe, once through our
# libvulkan.so.1 and once through Debian's Khronos loader. The full text report and the --json
# profile must be identical (layers are hidden from both: the layers work is tracked separately).
# Policies: LDP_LOADER_2 (every well-formed manifest attempted), RULE_PHYSDEV_AGGREGATE.
set -euo pipefail

LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
KHRONOS=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
if ! command -v vulkaninfo >/dev/null || [ ! -f "$LVP" ] || [ ! -f "$KHRONOS" ]; then
  echo "SKIP: needs vulkaninfo (vulkan-tools), lavapipe (mesa-vulkan-drivers) and libvulkan1; run ci/bootstrap" >&2
  # Bazel has no skip status for sh_test; CI installs the packages, so a missing one is a failure.
  exit 1
fi

ours_lib="$TEST_SRCDIR/$TEST_WORKSPACE/loader/libvulkan.so.1"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}"
libdir="$TEST_TMPDIR/ourloader"
mkdir -p "$libdir"
# vulkaninfo dlopens "libvulkan.so" before "libvulkan.so.1": provide both names.
cp "$ours_lib" "$libdir/libvulkan.so.1"
ln -sf libvulkan.so.1 "$libdir/libvulkan.so"
empty="$TEST_TMPDIR/empty"
mkdir -p "$empty"

# Under --config=asan our loader needs the ASan runtime first in an uninstrumented vulkaninfo.
preload=""
asan_rt=$(ldd "$ours_lib" | awk '/libasan/ {print $3}')
if [ -n "$asan_rt" ]; then preload="$asan_rt"; fi

run() {  # run NAME [LD_LIBRARY_PATH] -- vulkaninfo args
  local name=$1 ldp=$2; shift 2
  local pre=""
  [ -n "$ldp" ] && pre="$preload"
  env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" XDG_RUNTIME_DIR="$TEST_TMPDIR" \
    LD_PRELOAD="$pre" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
    LD_LIBRARY_PATH="$ldp" VK_DRIVER_FILES="$LVP" VK_LAYER_PATH="$empty" \
    VK_IMPLICIT_LAYER_PATH="$empty" VK_LOADER_LAYERS_DISABLE='~implicit~' \
    timeout 120 vulkaninfo "$@" 2>"$out/$name.stderr"
}

cd "$TEST_TMPDIR"
run ours.txt "$libdir" > "$out/ours.txt"
run khronos.txt "" > "$out/khronos.txt"
run ours.json "$libdir" --json -o "$out/ours.json" >/dev/null
run khronos.json "" --json -o "$out/khronos.json" >/dev/null

# Sanity: the runs really went through different loaders and saw lavapipe.
grep -q "llvmpipe" "$out/ours.txt" || { echo "FAIL: lavapipe not listed through our loader"; exit 1; }
ours_ver=$(grep -m1 "Vulkan Instance Version" "$out/ours.txt")
echo "through our loader: $ours_ver; devices: $(grep -c 'deviceName' "$out/ours.txt")"

# What may differ between the loaders: the line naming the loader's own version, and
# VK_LUNARG_direct_driver_loading, a loader extension Debian's 1.3.239 predates (listed by newer
# Khronos loaders; conformance/deviations/khronos.tsv), with the instance-extension count it adds to.
norm() { grep -v "Vulkan Instance Version" "$1" | sed -e '/VK_LUNARG_direct_driver_loading/d' -e 's/^\(Instance Extensions: count = \)[0-9]*$/\1N/'; }
normjson() { sed -e '/"VK_LUNARG_direct_driver_loading"/d' "$1"; }
status=0
if ! diff <(norm "$out/ours.txt") <(norm "$out/khronos.txt") > "$out/text.diff"; then
  echo "FAIL: vulkaninfo text output differs:"; head -50 "$out/text.diff"; status=1
fi
if ! diff <(normjson "$out/ours.json") <(normjson "$out/khronos.json") > "$out/json.diff"; then
  echo "FAIL: vulkaninfo --json output differs:"; head -50 "$out/json.diff"; status=1
fi
[ $status -eq 0 ] && echo "PASS: vulkaninfo text ($(wc -l < "$out/ours.txt") lines) and --json ($(wc -c < "$out/ours.json") bytes) identical"
exit $status
