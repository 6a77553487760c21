#!/usr/bin/env bash
# Runs on the GPU machine from the bundle directory (make_bundle.sh): wall-time of a cold process's
# start-up sequence through our loader and through the Khronos loader carried in the bundle,
# interleaved (ours, khronos, ours, ...), RUNS samples each (default 30), then the per-call costs
# (vkGetDeviceProcAddr hit/miss, exported trampoline vs the driver's pointer) CALLS_RUNS times each
# (default RUNS; CALLS_ITERS calls per timed loop, default 1000000), then
# steady-state vkCreateInstance + vkDestroyInstance (one process per sample: 11 batches of
# CREATE_ITERS pairs, default 100, the median batch) through ours, through Khronos and the loader-free
# floor (the driver's own negotiation, vkCreateInstance, vkDestroyInstance, called directly),
# interleaved, CREATE_RUNS samples each (default RUNS). Writes $OUT/gpu_timing.jsonl (every sample)
# and prints medians with min-max. Driver: NV_ICD or NVIDIA's (one manifest file; the floor reads its
# library_path).
# Each round starts with a different loader (round i rotates the list by i-1): a loader always run
# right after the same other one would inherit that position's machine state in every round.
# Each round also draws one heap pad (0-65,520 bytes, a multiple of 16; HEAP_PAD=N fixes it, 0 turns
# it off) and gives it to every loader of the round (gpu_timing --heap-pad): address-space
# randomisation moves the heap by whole pages only, so without a pad each loader keeps one layout
# within the page in every process, and that layout alone moves a driver's own costs by percents.
# CALLS_CPU=N pins each per-call process's timing thread to CPU N after bring-up (gpu_timing --cpu).
# Overrides, for a run outside the bundle (e.g. here with Mesa's lavapipe):
#   SECTIONS="startup calls create" (any subset, plus "parts": gpu_timing --mode=floor-parts)  OURS=... KHRONOS=... TIMING=... (the binaries)
#   NV_ICD=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=${OUT:-$(mktemp -d /tmp/gpu-timing.XXXXXX)}
mkdir -p "$o"
runs=${RUNS:-30}
cxx=""
if ! ldconfig -p 2>/dev/null | grep -q 'libstdc++\.so\.6 '; then cxx=":$here/cxxrt"; fi
export LD_LIBRARY_PATH="$here$cxx:$here/glvnd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_DRIVER_FILES=${NV_ICD:-/usr/share/vulkan/icd.d/nvidia_icd.json}
declare -A lib=([ours]="${OURS:-$here/libvulkan.so.1}" [khronos]="${KHRONOS:-$here/libvulkan_khronos.so.1}"
               [newest]="${NEWEST:-$here/libvulkan_newest.so.1}")
# The loaders compared, interleaved: ours, Debian's Khronos loader, and the newest Khronos loader
# when the bundle carries it (make_bundle.sh with KHRONOS_NEWEST).
loaders="ours khronos"
[ -f "${lib[newest]}" ] && loaders="ours newest khronos"
timing=${TIMING:-$here/gpu_timing}
sections=" ${SECTIONS:-startup calls create} "
create_runs=${CREATE_RUNS:-$runs}
create_iters=${CREATE_ITERS:-100}
out="$o/gpu_timing.jsonl"
# Sets pad (no subshell: $RANDOM must advance in this shell, not in a copy of it).
next_pad() { if [ -n "${HEAP_PAD:-}" ]; then pad=$HEAP_PAD; else pad=$(( (RANDOM * 32768 + RANDOM) % 4096 * 16 )); fi; }
rotate() {  # rotate ROUND WORD... : the words, starting at word (ROUND-1) mod count
  local r=$1; shift
  local a=("$@") k
  k=$(( (r - 1) % ${#a[@]} ))
  echo "${a[@]:k}" "${a[@]:0:k}"
}
: > "$out"
[[ "$sections" == *" startup "* ]] && for i in $(seq 1 "$runs"); do
  next_pad
  for l in $(rotate "$i" $loaders); do
    line=$("$timing" --loader="${lib[$l]}" --mode=startup --heap-pad="$pad" 2>/dev/null | tail -1)
    echo "{\"which\":\"$l\",\"run\":$i,\"pad\":$pad,\"sample\":$line}" >> "$out"
  done
done
calls_runs=${CALLS_RUNS:-$runs}
[[ "$sections" == *" calls "* ]] && for i in $(seq 1 "$calls_runs"); do
  next_pad
  for l in $(rotate "$i" $loaders); do
    line=$("$timing" --loader="${lib[$l]}" --mode=calls --iters="${CALLS_ITERS:-1000000}" --heap-pad="$pad" \
      ${CALLS_CPU:+--cpu="$CALLS_CPU"} 2>/dev/null | tail -1)
    echo "{\"which\":\"$l\",\"run\":$i,\"pad\":$pad,\"sample\":$line}" >> "$out"
  done
done
[[ "$sections" == *" create "* ]] && for i in $(seq 1 "$create_runs"); do
  next_pad
  for l in $(rotate "$i" $loaders floor); do
    if [ "$l" = floor ]; then
      line=$("$timing" --mode=floor --driver="$VK_DRIVER_FILES" --iters="$create_iters" --heap-pad="$pad" 2>/dev/null | tail -1)
    else
      line=$("$timing" --loader="${lib[$l]}" --mode=create --iters="$create_iters" --heap-pad="$pad" 2>/dev/null | tail -1)
    fi
    echo "{\"which\":\"$l\",\"run\":$i,\"pad\":$pad,\"sample\":$line}" >> "$out"
  done
done
# What else a loader asks of the driver per instance (gpu_timing --mode=floor-parts): PARTS_RUNS
# processes, each the medians of PARTS_ITERS repetitions (defaults 10 and 100).
[[ "$sections" == *" parts "* ]] && for i in $(seq 1 "${PARTS_RUNS:-10}"); do
  line=$("$timing" --mode=floor-parts --driver="$VK_DRIVER_FILES" --iters="${PARTS_ITERS:-100}" \
    --names-file="${NAMES:-$here/instance_commands.txt}" 2>/dev/null | tail -1)
  echo "{\"which\":\"parts\",\"run\":$i,\"sample\":$line}" >> "$out"
done
# Medians and spreads (no python on the machine: sort + awk).
stat() {  # stat LOADER KEY
  grep "\"which\":\"$1\"" "$out" | grep -o "\"$2\":-\?[0-9.]*" | cut -d: -f2 | sort -g |
    awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit} m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2;
         printf "%s (min %s, max %s, n=%d)\n", m, v[1], v[NR], NR}'
}
grep -m1 -o '"device":"[^"]*"' "$out"
for k in ns gdpa_hit_ns gdpa_miss_ns cmd_exported_trampoline_ns cmd_gdpa_pointer_ns cmd_paired_diff_ns \
         create_destroy_ns reopen_ns negotiate_ns extensions_ns version_ns create_ns lookups_ns destroy_ns; do
  for l in ours newest khronos floor parts; do
    grep -q "\"which\":\"$l\".*\"$k\":" "$out" && echo "$k $l: $(stat $l $k)"
  done
done
grep -q '"error"' "$out" && { echo "errors:"; grep '"error"' "$out"; }
echo "samples: $out"
