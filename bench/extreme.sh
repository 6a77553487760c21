#!/usr/bin/env bash
# The scaling extreme (docs/performance.md "Round five"), tried as a new user would: one process
# that opens the loader, calls vkCreateInstance, vkEnumeratePhysicalDevices (count + fill) and
# vkDestroyInstance (`gpu_timing --mode=enumerate`), timed whole by `/usr/bin/time -f '%e s %M KB'`
# (elapsed seconds, peak resident set), through each loader, with
#   drivers   N driver manifests in one directory (VK_DRIVER_FILES), all naming one copy of the
#             bench's null driver (so N instances and N physical devices: the null driver takes
#             instances past its static pool from the heap)
#   distinct  as drivers, but every physical device differs (type, IDs, name: BENCH_NULL_ICD_DISTINCT=
#             instance numbers the null driver's instances in creation order), so the device sort
#             has work to do
#   explicit  N explicit layer manifests (VK_LAYER_PATH), none enabled, 1 driver
#   implicit  N implicit layer manifests ($XDG_DATA_HOME/vulkan/implicit_layer.d), each disabled by
#             its disable_environment (set), 1 driver
#   xdg       XDG_DATA_DIRS with X distinct entries (absent directories), the driver manifest in the
#             last one; no VK_DRIVER_FILES. The value is longer than execve allows for one string
#             (128 KiB), so the client sets it itself (--env-file) before it opens the loader.
#   none      the baseline: 1 driver, nothing else
# Every other search location points at empty directories of the sandbox (a clean environment).
#
#   bench/extreme.sh [--sizes="10000 100000"] [--xdg="5000 50000"] [--cases="none drivers distinct explicit implicit xdg"]
#                    [--loader=NAME=PATH]... [--reps=R] [--timeout=S] [--out=FILE]
# --reps=R runs every (case, size) R times, the loaders interleaved (one row per process).
# Default loaders: ours (bazel-bin/loader/libvulkan.so.1) and khronos (Debian's, when installed).
# Builds //bench:gpu_timing, the null driver, the pass-through layer and the loader with bazel (set
# BIN=DIR to use an existing bazel-bin instead). The sandbox is a temporary directory, removed at
# the end (KEEP=1 keeps it). Prints one Markdown table row per (case, size, loader), also to --out.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
sizes="10000 100000"
xdg_sizes="5000 50000"
cases="none drivers distinct explicit implicit xdg"
limit=900
reps=1
out=""
declare -a names=() paths=()
for a in "$@"; do
  case "$a" in
    --sizes=*) sizes=${a#*=} ;;
    --xdg=*) xdg_sizes=${a#*=} ;;
    --cases=*) cases=${a#*=} ;;
    --timeout=*) limit=${a#*=} ;;
    --reps=*) reps=${a#*=} ;;
    --out=*) out=${a#*=} ;;
    --loader=*=*) v=${a#--loader=}; names+=("${v%%=*}"); paths+=("${v#*=}") ;;
    *) sed -n '2,30p' "$0" >&2; exit 2 ;;
  esac
done
if [ -z "${BIN:-}" ]; then
  (cd "$top" && bazel build //bench:gpu_timing //bench:libbench_null_icd.so //bench:libbench_passthrough_layer.so \
     //loader:libvulkan.so.1 2>&1 | grep -E '^(ERROR|FAILED)' >&2) || true
  BIN=$(cd "$top" && bazel info bazel-bin 2>/dev/null)
fi
for f in bench/gpu_timing bench/libbench_null_icd.so bench/libbench_passthrough_layer.so loader/libvulkan.so.1; do
  [ -f "$BIN/$f" ] || { echo "extreme: $BIN/$f is missing" >&2; exit 1; }
done
if [ ${#names[@]} -eq 0 ]; then
  names=(ours); paths=("$BIN/loader/libvulkan.so.1")
  if [ -f /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ]; then
    names+=(khronos); paths+=(/usr/lib/x86_64-linux-gnu/libvulkan.so.1)
  fi
fi
# /usr/bin/time (Debian package time) gives elapsed time and peak RSS; without it (the GPU machine
# has no Debian packages) the elapsed time is taken with date and the peak RSS is not known.
have_time=1
[ -x /usr/bin/time ] || { have_time=0; echo "extreme: /usr/bin/time is missing: elapsed time only" >&2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/vkl-extreme.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
mkdir -p "$T/lib" "$T/home" "$T/empty/config" "$T/empty/configdirs" "$T/empty/data" "$T/empty/datadirs" "$T/one"
cp "$BIN/bench/libbench_null_icd.so" "$BIN/bench/libbench_passthrough_layer.so" "$T/lib/"
drv_json() { printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
  "$T/lib/libbench_null_icd.so"; }
drv_json > "$T/one/null_icd.json"

# N manifests in DIR: KIND driver | explicit | implicit.
make_manifests() {  # KIND N DIR
  mkdir -p "$3"
  awk -v kind="$1" -v n="$2" -v dir="$3" -v drv="$T/lib/libbench_null_icd.so" \
      -v lay="$T/lib/libbench_passthrough_layer.so" 'BEGIN {
    for (i = 0; i < n; i++) {
      f = sprintf("%s/%s_%06d.json", dir, kind, i)
      if (kind == "driver")
        printf "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"%s\", \"api_version\": \"1.3.0\"}}\n", drv > f
      else
        printf "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_EXTREME_%s_%d\", \"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", \"description\": \"extreme\"%s}}\n", kind, i, lay, (kind == "implicit" ? ", \"disable_environment\": {\"EXTREME_DISABLE\": \"1\"}" : "") > f
      close(f)
    }
  }'
}

rows=()
# run CASE SIZE ENV-FILE: one timed process per loader (the clean environment plus ENV-FILE's lines).
run() {
  local case=$1 size=$2 envf=$3
  for ((r = 0; r < reps; r++)); do for i in "${!names[@]}"; do
    local tf="$T/time.txt" res="$T/res.txt"
    : > "$tf"
    local st=0
    local timer=(/usr/bin/time -o "$tf" -f '%e s %M KB') t0 t1
    [ "$have_time" = 1 ] || timer=()
    t0=$(date +%s%N)
    env -i PATH=/usr/bin:/bin HOME="$T/home" XDG_CONFIG_HOME="$T/empty/config" XDG_CONFIG_DIRS="$T/empty/configdirs" \
      XDG_DATA_HOME="$T/empty/data" XDG_DATA_DIRS="$T/empty/datadirs" EXTREME_DISABLE=1 \
      ${LD_LIBRARY_PATH:+LD_LIBRARY_PATH="$LD_LIBRARY_PATH"} \
      timeout "$limit" "${timer[@]}" \
      "$BIN/bench/gpu_timing" --loader="${paths[$i]}" --mode=enumerate --env-file="$envf" > "$res" 2>/dev/null || st=$?
    t1=$(date +%s%N)
    [ "$have_time" = 1 ] || awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f s\n", ns / 1e9 }' > "$tf"
    local t devs
    t=$(tail -1 "$tf")
    devs=$(grep -o '"physical_devices":[0-9]*' "$res" | cut -d: -f2 || true)
    local ids
    ids=$(grep -o '"distinct_device_ids":[0-9]*' "$res" | cut -d: -f2 || true)
    [ -n "$ids" ] && [ "$ids" != "$devs" ] && devs="$devs ($ids distinct)"
    [ "$st" = 0 ] || t="failed (status $st${t:+; $t})"
    [ "$st" = 124 ] && t="timed out after ${limit} s"
    local row="| $case | $size | ${names[$i]} | $t | ${devs:-–} |"
    echo "$row"
    rows+=("$row")
  done; done
}

echo "| case | manifests / entries | loader | elapsed, peak RSS (/usr/bin/time) | physical devices |"
echo "|---|---:|---|---|---:|"
for c in $cases; do
  case "$c" in
    none)
      printf 'VK_DRIVER_FILES=%s\n' "$T/one/null_icd.json" > "$T/env"
      run none 0 "$T/env" ;;
    drivers|distinct|explicit|implicit)
      for n in $sizes; do
        d="$T/$c$n"
        case "$c" in
          drivers) make_manifests driver "$n" "$d"; printf 'VK_DRIVER_FILES=%s\n' "$d" > "$T/env" ;;
          distinct) make_manifests driver "$n" "$d"
                    printf 'VK_DRIVER_FILES=%s\nBENCH_NULL_ICD_DISTINCT=instance\n' "$d" > "$T/env" ;;
          explicit) make_manifests explicit "$n" "$d"
                    printf 'VK_DRIVER_FILES=%s\nVK_LAYER_PATH=%s\n' "$T/one/null_icd.json" "$d" > "$T/env" ;;
          implicit) make_manifests implicit "$n" "$d/vulkan/implicit_layer.d"
                    printf 'VK_DRIVER_FILES=%s\nXDG_DATA_HOME=%s\n' "$T/one/null_icd.json" "$d" > "$T/env" ;;
        esac
        run "$c" "$n" "$T/env"
        rm -rf "$d"
      done ;;
    xdg)
      for n in $xdg_sizes; do
        mkdir -p "$T/xdgdrv/vulkan/icd.d"
        drv_json > "$T/xdgdrv/vulkan/icd.d/null_icd.json"
        awk -v n="$n" -v t="$T" 'BEGIN { printf "XDG_DATA_DIRS="; for (i = 1; i < n; i++) printf "%s/x/%06d:", t, i;
                                         printf "%s/xdgdrv\n", t }' > "$T/env"
        run xdg "$n" "$T/env"
      done ;;
    *) echo "extreme: unknown case $c" >&2; exit 2 ;;
  esac
done
if [ -n "$out" ]; then printf '%s\n' "${rows[@]}" > "$out"; fi
[ -z "${KEEP:-}" ] || echo "sandbox kept: $T"
