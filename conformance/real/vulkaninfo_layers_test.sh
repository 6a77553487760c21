#!/usr/bin/env bash
# Real layers through our loader with lavapipe:
#  1. vulkaninfo (text and --json) lists the same layers, with the same layer and layer-device
#     extensions, through our libvulkan.so.1 as through Debian's Khronos loader. Layers are NOT
#     hidden here (the system's implicit and explicit layer directories are searched).
#  2. The same with VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation (the validation layer in the chain).
#  3. Mesa's implicit VK_LAYER_MESA_device_select is in the chain by default and leaves it when its
#     disable variable NODEVICE_SELECT=1 is set (LLP_LOADER_7).
# Policies: LLP_LOADER_1, RULE_LYR_SEARCH_ORDER, RULE_LYR_ENV_INSTANCE_LAYERS, LLP_LOADER_7.
set -euo pipefail

LVP=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
KHRONOS=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
VAL=/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
DS=/usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json
for f in "$LVP" "$KHRONOS" "$VAL" "$DS"; do
  [ -f "$f" ] || { echo "FAIL: needs $f (run ci/bootstrap)"; exit 1; }
done
command -v vulkaninfo >/dev/null || { echo "FAIL: needs vulkaninfo"; exit 1; }

ours_lib="$TEST_SRCDIR/$TEST_WORKSPACE/loader/libvulkan.so.1"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}"
libdir="$TEST_TMPDIR/ourloader"
mkdir -p "$libdir"
cp "$ours_lib" "$libdir/libvulkan.so.1"
ln -sf libvulkan.so.1 "$libdir/libvulkan.so"
preload=""
asan_rt=$(ldd "$ours_lib" | awk '/libasan/ {print $3}')
if [ -n "$asan_rt" ]; then preload="$asan_rt"; fi

run() {  # run NAME LD_LIBRARY_PATH [VAR=VALUE...] -- vulkaninfo args
  local name=$1 ldp=$2; shift 2
  local pre="" vars=()
  [ -n "$ldp" ] && pre="$preload"
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  env -i PATH=/usr/bin:/bin HOME="$TEST_TMPDIR" XDG_RUNTIME_DIR="$TEST_TMPDIR" \
    LD_PRELOAD="$pre" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
    LD_LIBRARY_PATH="$ldp" VK_DRIVER_FILES="$LVP" "${vars[@]}" \
    timeout 300 vulkaninfo "$@" 2>"$out/$name.stderr"
}

cd "$TEST_TMPDIR"
# What may differ between the loaders: the line naming the loader's own version, and
# VK_LUNARG_direct_driver_loading, a loader extension Debian's 1.3.239 predates (listed by newer
# Khronos loaders; conformance/deviations/khronos.tsv), with the instance-extension count it adds to.
norm() { grep -v "Vulkan Instance Version" "$1" | sed -e '/VK_LUNARG_direct_driver_loading/d' -e 's/^\(Instance Extensions: count = \)[0-9]*$/\1N/'; }
normjson() { sed -e '/"VK_LUNARG_direct_driver_loading"/d' "$1"; }
status=0
compare() {  # compare LABEL [VAR=VALUE...]
  local label=$1; shift
  run "$label.ours.txt" "$libdir" "$@" -- > "$out/$label.ours.txt"
  run "$label.khronos.txt" "" "$@" -- > "$out/$label.khronos.txt"
  run "$label.ours.json" "$libdir" "$@" -- --json -o "$out/$label.ours.json" >/dev/null
  run "$label.khronos.json" "" "$@" -- --json -o "$out/$label.khronos.json" >/dev/null
  grep -q "VK_LAYER_KHRONOS_validation" "$out/$label.ours.txt" || { echo "FAIL($label): validation layer not listed"; status=1; }
  grep -q "VK_LAYER_MESA_device_select" "$out/$label.ours.txt" || { echo "FAIL($label): device_select not listed"; status=1; }
  if ! diff <(norm "$out/$label.ours.txt") <(norm "$out/$label.khronos.txt") > "$out/$label.text.diff"; then
    echo "FAIL($label): vulkaninfo text output differs:"; head -40 "$out/$label.text.diff"; status=1
  fi
  if ! diff <(normjson "$out/$label.ours.json") <(normjson "$out/$label.khronos.json") > "$out/$label.json.diff"; then
    echo "FAIL($label): vulkaninfo --json output differs:"; head -40 "$out/$label.json.diff"; status=1
  fi
  echo "$label: $(grep -c 'Layer Extensions' "$out/$label.ours.txt") layers listed"
}
compare layers VK_LOADER_DEBUG=
compare validation VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation

# The chain itself, from our loader's layer log.
run chain.default "$libdir" VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation -- --summary >/dev/null
grep -q 'Insert instance layer "VK_LAYER_MESA_device_select"' "$out/chain.default.stderr" || { echo "FAIL: device_select not in the chain by default"; status=1; }
grep -q 'Insert instance layer "VK_LAYER_KHRONOS_validation"' "$out/chain.default.stderr" || { echo "FAIL: validation not in the chain with VK_INSTANCE_LAYERS"; status=1; }
run chain.nods "$libdir" VK_LOADER_DEBUG=layer NODEVICE_SELECT=1 -- --summary >/dev/null
if grep -q 'Insert instance layer "VK_LAYER_MESA_device_select"' "$out/chain.nods.stderr"; then
  echo "FAIL: device_select still in the chain with NODEVICE_SELECT=1"; status=1
fi
grep -q 'VK_LAYER_MESA_device_select: implicit layer disabled by env var .NODEVICE_SELECT.' "$out/chain.nods.stderr" || { echo "FAIL: no disable log line"; status=1; }
[ $status -eq 0 ] && echo "PASS: layer listings identical; validation and device_select behave through our loader"
exit $status
