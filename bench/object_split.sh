#!/usr/bin/env bash
# Where a cold process's start-up instructions go, per object file (the claim it checks: "start-up
# grows 21x from 100 to 1,000 drivers; most of it is ld.so loading the libraries"). For each driver
# count and each loader, the bench's start-up child (`bench --child --mode=startup`: dlopen of the
# loader to vkDestroyInstance, the "start-up sequence (cold process)" row) runs under callgrind in
# the bench's sandbox layout (N manifests, each naming its own copy of the null driver); the dump of
# that block is split by the object file each instruction executed in (self cost, summed over the
# dump's `ob=` records), and the inclusive cost of the dynamic linker's entry points (dlopen, dlsym,
# dlclose, from callgrind_annotate --inclusive=yes) is reported beside it.
#
#   bench/object_split.sh [--drivers="100 1000"] [--loader=NAME=PATH]...
# Default loaders: ours (bazel-bin/loader/libvulkan.so.1) and khronos (Debian's, when installed).
# Builds //bench with bazel unless BIN=DIR names an existing bazel-bin. Needs valgrind.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
counts="100 1000"
declare -a names=() paths=()
for a in "$@"; do
  case "$a" in
    --drivers=*) counts=${a#*=} ;;
    --loader=*=*) v=${a#--loader=}; names+=("${v%%=*}"); paths+=("${v#*=}") ;;
    *) sed -n '2,14p' "$0" >&2; exit 2 ;;
  esac
done
if [ -z "${BIN:-}" ]; then
  (cd "$top" && bazel build //bench 2>&1 | grep -E '^(ERROR|FAILED)' >&2) || true
  BIN=$(cd "$top" && bazel info bazel-bin 2>/dev/null)
fi
bench="$BIN/bench/bench"
[ -x "$bench" ] || { echo "object_split: $bench is missing" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "object_split: valgrind is missing" >&2; exit 1; }
if [ ${#names[@]} -eq 0 ]; then
  names=(ours); paths=("$BIN/loader/libvulkan.so.1")
  if [ -f /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ]; then
    names+=(khronos); paths+=(/usr/lib/x86_64-linux-gnu/libvulkan.so.1)
  fi
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/vkl-objsplit.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/drivers" "$T/home" "$T/empty/config" "$T/empty/configdirs" "$T/empty/data" "$T/empty/datadirs"
max=0
for n in $counts; do [ "$n" -gt "$max" ] && max=$n; done
for n in $counts; do mkdir -p "$T/drivers_$n"; done
for ((i = 0; i < max; i++)); do
  lib="$T/drivers/libbench_null_icd_$i.so"
  cp "$BIN/bench/libbench_null_icd.so" "$lib"
  for n in $counts; do
    [ "$i" -lt "$n" ] || continue
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' "$lib" \
      > "$T/drivers_$n/null_icd_$(printf %03d "$i").json"
  done
done

# Self cost per object of one callgrind dump: ob=/cob= names are compressed ("(id) name" once, then
# "(id)"); the cost line after a calls= line is an inclusive call cost and is skipped.
split() {
  awk '
    function name(v,   id, rest) {
      if (match(v, /^\([0-9]+\)/)) {
        id = substr(v, 2, RLENGTH - 2); rest = substr(v, RLENGTH + 1); sub(/^ /, "", rest)
        if (rest != "") names[id] = rest
        return names[id]
      }
      return v
    }
    /^ob=/  { ob = name(substr($0, 4)); next }
    /^cob=/ { name(substr($0, 5)); next }
    /^calls=/ { skip = 1; next }
    /^[0-9+*-]/ { if (skip) { skip = 0; next } cost[ob] += $2; total += $2; next }
    END {
      for (o in cost) {
        k = o
        if (o ~ /ld-linux/) k = "ld.so"
        else if (o ~ /\/libc\.so/) k = "libc"
        else if (o ~ /libvulkan/) k = "loader"
        else if (o ~ /libbench_null_icd/) k = "drivers"
        else if (o ~ /\/bench$/) k = "bench"
        else k = "other"
        sum[k] += cost[o]
      }
      printf "%d %d %d %d %d %d %d\n", total, sum["ld.so"], sum["libc"], sum["loader"], sum["drivers"], sum["bench"], sum["other"]
    }' "$1"
}
# Inclusive cost of the dynamic linker's entry points (the outermost of each: dlopen, dlsym, dlclose).
dl_inclusive() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
    awk '/:(dlopen|dlsym|dlclose)@@GLIBC_2\.34( |$)/ { gsub(/,/, "", $1); s += $1 } END { printf "%d\n", s }'
}

fmt() { awk -v v="$1" 'BEGIN { if (v >= 1e6) printf "%.2fM", v / 1e6; else if (v >= 1e4) printf "%.1fk", v / 1e3; else printf "%d", v }'; }
echo "| loader | drivers | total | ld.so | libc | libvulkan.so.1 | null drivers | bench + other | dlopen + dlsym + dlclose (inclusive) | total minus dl* |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for i in "${!names[@]}"; do
  for n in $counts; do
    cg="$T/cg_${i}_$n"
    mkdir -p "$cg"
    env -i PATH=/usr/bin:/bin HOME="$T/home" XDG_CONFIG_HOME="$T/empty/config" XDG_CONFIG_DIRS="$T/empty/configdirs" \
      XDG_DATA_HOME="$T/empty/data" XDG_DATA_DIRS="$T/empty/datadirs" VK_DRIVER_FILES="$T/drivers_$n" \
      BENCH_DISABLE_IMPLICIT=1 valgrind --tool=callgrind -q --callgrind-out-file="$cg/cg.out" \
      "$bench" --child --loader="${paths[$i]}" --sandbox="$T" --scenario="$n drivers" --mode=startup > /dev/null
    dump=$(grep -l 'Trigger: Client Request: start-up sequence' "$cg"/cg.out* | head -1)
    read -r total ld libc loader drivers benchself other < <(split "$dump")
    dl=$(dl_inclusive "$dump")
    echo "| ${names[$i]} | $n | $(fmt "$total") | $(fmt "$ld") | $(fmt "$libc") | $(fmt "$loader") | $(fmt "$drivers") |" \
         "$(fmt $((benchself + other))) | $(fmt "$dl") | $(fmt $((total - dl))) |"
    echo "RAW ${names[$i]} $n total=$total ld.so=$ld libc=$libc loader=$loader drivers=$drivers bench=$benchself other=$other dl_inclusive=$dl" >&2
  done
done
