#!/bin/bash -eu
# The fuzz build of vk-loader-harness without Bazel: the one build script. OSS-Fuzz's build.sh
# (fuzz/oss-fuzz/build.sh, copied to projects/vk-loader-harness) and ClusterFuzzLite's
# (.clusterfuzzlite/build.sh) only call it; ci/fuzz_smoke and fuzz/tools/* run it through the
# former. The sources are compiled directly with the engine's compiler and flags.
#
# Contract (google/oss-fuzz docs): $CC/$CXX, $CFLAGS/$CXXFLAGS, link with $CXX $CXXFLAGS and
# $LIB_FUZZING_ENGINE, binaries and <target>_seed_corpus.zip / <target>.dict into $OUT, scratch in
# $WORK, sources under $SRC. Optional inputs:
#   VKL_ROOT          the repository (default: this script's .., else $SRC/vk-loader-harness)
#   VULKAN_HEADERS    a Khronos Vulkan-Headers checkout (include/ and registry/vk.xml); default
#                     $SRC/Vulkan-Headers when present, else /usr/include + /usr/share/vulkan/registry
#   CJSON_SRC         Debian's cjson source tree (cJSON.c, cJSON.h); default $SRC/cjson, else the
#                     cache fuzz/fetch_cjson_src.sh fills (apt-get source cjson)
#   MOCK_CC           compiler for the mock drivers (default $CC; plain clang for afl-clang-*)
#   VKL_FUZZ_TARGETS  space-separated subset of the targets to build
#   VKL_KHRONOS_LOADER the Khronos libvulkan.so.1 that loader_diff_fuzzer compares with, copied to
#                     $OUT/vkl_khronos/; unset: built there from KHRONOS_LOADER_SRC when that is
#                     a vulkan-loader source tree, else /usr/lib/x86_64-linux-gnu/libvulkan.so.1
#                     when present (conformance/deviations/khronos.tsv is for Debian's 1.3.239)
#   KHRONOS_LOADER_SRC Debian's vulkan-loader source (fuzz/oss-fuzz/khronos_source.sh), compiled
#                     uninstrumented by fuzz/oss-fuzz/build_khronos.sh; default $SRC/khronos-loader
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${VKL_ROOT:-}" ]; then
  if [ -d "$here/../loader" ]; then VKL_ROOT=$(cd "$here/.." && pwd)
  else VKL_ROOT=$SRC/vk-loader-harness; fi
fi
cd "$VKL_ROOT"

ALL_TARGETS="json_fuzzer icd_manifest_fuzzer layer_manifest_fuzzer filter_fuzzer path_list_fuzzer util_fuzzer settings_fuzzer loader_world_fuzzer layer_chain_fuzzer ldp_check_fuzzer ldp_package_fuzzer loader_diff_fuzzer"
TARGETS=${VKL_FUZZ_TARGETS:-$ALL_TARGETS}

# ---- inputs ----------------------------------------------------------------------------------
if [ -n "${VULKAN_HEADERS:-}" ] || [ -d "$SRC/Vulkan-Headers/include/vulkan" ]; then
  VULKAN_HEADERS=${VULKAN_HEADERS:-$SRC/Vulkan-Headers}
  VK_INC=$VULKAN_HEADERS/include
  VK_XML=$VULKAN_HEADERS/registry/vk.xml
else
  VK_INC=/usr/include
  VK_XML=/usr/share/vulkan/registry/vk.xml
fi
if [ -z "${CJSON_SRC:-}" ]; then
  if [ -f "$SRC/cjson/cJSON.c" ]; then CJSON_SRC=$SRC/cjson
  else CJSON_SRC=$("$VKL_ROOT/fuzz/fetch_cjson_src.sh"); fi
fi
[ -f "$CJSON_SRC/cJSON.c" ] || { echo "build.sh: no cJSON.c in $CJSON_SRC" >&2; exit 1; }
case "$CC" in
  *afl-*) MOCK_CC=${MOCK_CC:-clang} ;;   # AFL instrumentation in a dlclose()d DSO: not wanted
  *) MOCK_CC=${MOCK_CC:-$CC} ;;
esac

B=$WORK/vkl-build
rm -rf "$B"
mkdir -p "$B/gen/loader" "$B/include/cjson" "$B/obj" "$B/mockobj" "$OUT"

# ---- generated loader sources (tools/vkgen) ------------------------------------------------
python3 tools/vkgen/vkgen.py --registry "$VK_XML" --header "$VK_INC/vulkan/vulkan_core.h" \
  --custom loader/custom_commands.txt --out-dir "$B/gen/loader"
# The mock driver's no-op core commands (//mock_icd:mock_gen_commands, the same generator).
mkdir -p "$B/gen/mock_icd"
python3 tools/vkgen/vkgen_mock.py --registry "$VK_XML" --out "$B/gen/mock_icd/mock_gen_commands.c"
cp "$CJSON_SRC/cJSON.h" "$B/include/cjson/cJSON.h"
# The mock variant tables as a C header (fuzz/world/world.h includes it): the script and tables the
# Bazel genrule //fuzz:mock_variants_h_gen runs, so both builds read one source.
mkdir -p "$B/gen/fuzz/world"
python3 fuzz/oss-fuzz/mock_variants.py --header "$B/gen/fuzz/world/mock_variants.h" \
  mock_icd/variants.bzl mock_layers/variants.bzl

# Same language level, platform macros and prototype/shadow warnings as loader/BUILD (C_COPTS,
# PLATFORM_COPTS); warnings only (no -Werror): the build stays clean with clang-14.
COMMON="-std=c11 -D_GNU_SOURCE -fvisibility=hidden -Wmissing-prototypes -Wshadow -Wstrict-prototypes -I$VKL_ROOT -I$B/gen -I$B/include -I$VK_INC"
PLATFORM="-DVK_USE_PLATFORM_XCB_KHR -DVK_USE_PLATFORM_XLIB_KHR -DVK_USE_PLATFORM_WAYLAND_KHR"

compile() {  # compile OUT.o SRC [extra flags...]
  local out=$1 src=$2; shift 2
  $CC $CFLAGS $COMMON "$@" -c "$src" -o "$out"
}

# ---- cJSON (instrumented) and the loader ------------------------------------------------------
$CC $CFLAGS -std=c89 -w -c "$CJSON_SRC/cJSON.c" -o "$B/obj/cJSON.o"
# loader/BUILD sections: parsing, layers, core (everything else, plus the generated code).
PARSING="env filter json log manifest_icd discovery strlist fileio library_guard manifest_cache settings util"
LAYERS="layer layer_activate layer_filter manifest_layer"
parsing_objs=("$B/obj/cJSON.o")
layer_objs=()
core_objs=()
for f in loader/*.c; do
  n=$(basename "$f" .c)
  compile "$B/obj/loader_$n.o" "$f" $PLATFORM
  if [[ " $PARSING " == *" $n "* ]]; then parsing_objs+=("$B/obj/loader_$n.o")
  elif [[ " $LAYERS " == *" $n "* ]]; then layer_objs+=("$B/obj/loader_$n.o")
  else core_objs+=("$B/obj/loader_$n.o"); fi
done
for f in loader/*.S; do
  [ -e "$f" ] || continue
  n=$(basename "$f" .S)
  $CC $COMMON -c "$f" -o "$B/obj/loader_$n.o"
  core_objs+=("$B/obj/loader_$n.o")
done
for f in "$B"/gen/loader/*.c; do
  n=$(basename "$f" .c)
  compile "$B/obj/$n.o" "$f" $PLATFORM
  core_objs+=("$B/obj/$n.o")
done

# ---- targets ------------------------------------------------------------------------------------
link() {  # link TARGET OBJS...
  local t=$1; shift
  $CXX $CXXFLAGS "$@" $LIB_FUZZING_ENGINE -o "$OUT/$t" -ldl -lpthread -lm
}
want() { [[ " $TARGETS " == *" $1 "* ]]; }

for t in json_fuzzer icd_manifest_fuzzer filter_fuzzer path_list_fuzzer util_fuzzer settings_fuzzer; do
  want $t || continue
  compile "$B/obj/$t.o" "fuzz/$t.c"
  link $t "$B/obj/$t.o" "${parsing_objs[@]}"
done
if want layer_manifest_fuzzer && [ -f fuzz/layer_manifest_fuzzer.c ]; then
  compile "$B/obj/layer_manifest_fuzzer.o" fuzz/layer_manifest_fuzzer.c
  link layer_manifest_fuzzer "$B/obj/layer_manifest_fuzzer.o" "${layer_objs[@]}" "${parsing_objs[@]}"
fi

# ldp-check's front end (conformance/driver/, without main.c) and the shared report writers, with
# the registry and the SARIF rule texts generated as conformance/driver/BUILD does.
if want ldp_check_fuzzer && [ -f fuzz/ldp_check_fuzzer.c ]; then
  python3 conformance/driver/gen_registry.py "$VK_XML" "$B/gen/ldp_registry_gen.c"
  python3 conformance/driver/gen_rules.py conformance/policies/policies.tsv "$B/gen/ldp_rules_gen.c"
  ldp_objs=()
  for f in conformance/driver/*.c conformance/checker_common/*.c "$B/gen/ldp_registry_gen.c" "$B/gen/ldp_rules_gen.c"; do
    [ "$(basename "$f")" = main.c ] && continue
    o="$B/obj/ldp_$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
    compile "$o" "$f"
    ldp_objs+=("$o")
  done
  compile "$B/obj/ldp_check_fuzzer.o" fuzz/ldp_check_fuzzer.c
  link ldp_check_fuzzer "$B/obj/ldp_check_fuzzer.o" "${ldp_objs[@]}" "${parsing_objs[@]}" "$B/obj/vkl_gen_results.o"
fi

# ldp-check --package's metadata parser (conformance/driver/package.c): the same objects as
# ldp_check_fuzzer (compiled here when that target was not wanted).
if want ldp_package_fuzzer && [ -f fuzz/ldp_package_fuzzer.c ]; then
  if [ -z "${ldp_objs+x}" ]; then
    python3 conformance/driver/gen_registry.py "$VK_XML" "$B/gen/ldp_registry_gen.c"
    python3 conformance/driver/gen_rules.py conformance/policies/policies.tsv "$B/gen/ldp_rules_gen.c"
    ldp_objs=()
    for f in conformance/driver/*.c conformance/checker_common/*.c "$B/gen/ldp_registry_gen.c" "$B/gen/ldp_rules_gen.c"; do
      [ "$(basename "$f")" = main.c ] && continue
      o="$B/obj/ldp_$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
      compile "$o" "$f"
      ldp_objs+=("$o")
    done
  fi
  compile "$B/obj/ldp_package_fuzzer.o" fuzz/ldp_package_fuzzer.c
  link ldp_package_fuzzer "$B/obj/ldp_package_fuzzer.o" "${ldp_objs[@]}" "${parsing_objs[@]}" "$B/obj/vkl_gen_results.o"
fi

# The whole-loader targets: the shared world harness (fuzz/world/) + one decoder each.
world_targets=()
for t in loader_world_fuzzer layer_chain_fuzzer; do want $t && world_targets+=("$t"); done
if [ ${#world_targets[@]} -gt 0 ] || want loader_diff_fuzzer; then
  # The world (world*.c: tables, decoder, builder), the oracle (oracle*.c), the harness and its
  # application (harness.c, app.c); //fuzz:world lists the same files.
  world_objs=()
  for f in fuzz/world/world.c fuzz/world/world_decode.c fuzz/world/world_build.c; do
    compile "$B/obj/world_$(basename "$f" .c).o" "$f"
    world_objs+=("$B/obj/world_$(basename "$f" .c).o")
  done
  harness_objs=()
  for f in fuzz/world/oracle.c fuzz/world/oracle_chain.c fuzz/world/harness.c fuzz/world/app.c; do
    compile "$B/obj/world_$(basename "$f" .c).o" "$f"
    harness_objs+=("$B/obj/world_$(basename "$f" .c).o")
  done
  for t in "${world_targets[@]}"; do
    compile "$B/obj/$t.o" "fuzz/$t.c"
    link $t "$B/obj/$t.o" "${world_objs[@]}" "${harness_objs[@]}" "${core_objs[@]}" "${layer_objs[@]}" \
      "${parsing_objs[@]}" -Wl,--wrap=dlopen \
      -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
  done

  # The differential target (docs/fuzzing.md "Differential fuzzing"): the world (world*.c) without
  # the in-process loader, and our loader as a shared object it dlopen()s in a forked child,
  # $OUT/vkl_libvulkan/libvulkan.so.1 (instrumented like the target: the harness hands the child's
  # coverage counters back to the engine), beside the deviations table and Debian's Khronos loader.
  if want loader_diff_fuzzer; then
    # The diff harness (diff.c, diff_app.c, diff_compare.c, diff_stubs.c; //fuzz:diff_world).
    diff_objs=()
    for f in fuzz/world/diff.c fuzz/world/diff_app.c fuzz/world/diff_compare.c fuzz/world/diff_stubs.c \
      fuzz/loader_diff_fuzzer.c; do
      compile "$B/obj/diff_$(basename "$f" .c).o" "$f"
      diff_objs+=("$B/obj/diff_$(basename "$f" .c).o")
    done
    link loader_diff_fuzzer "${diff_objs[@]}" "${world_objs[@]}" -Wl,--export-dynamic-symbol=dlopen
    mkdir -p "$B/picobj" "$OUT/vkl_libvulkan" "$OUT/vkl_deviations"
    pic_objs=()
    $CC $CFLAGS -fPIC -fvisibility=hidden -std=c89 -w -c "$CJSON_SRC/cJSON.c" -o "$B/picobj/cJSON.o"
    pic_objs+=("$B/picobj/cJSON.o")
    for f in loader/*.c "$B"/gen/loader/*.c; do
      o="$B/picobj/$(basename "$f" .c).o"
      compile "$o" "$f" $PLATFORM -fPIC
      pic_objs+=("$o")
    done
    for f in loader/*.S; do
      [ -e "$f" ] || continue
      $CC $COMMON -fPIC -c "$f" -o "$B/picobj/$(basename "$f" .S).o"
      pic_objs+=("$B/picobj/$(basename "$f" .S).o")
    done
    # no -Wl,--no-undefined: the sanitizer and coverage runtimes come from the fuzzer executable
    $CC $CFLAGS -shared -fPIC -Wl,-soname,libvulkan.so.1 -Wl,--version-script=loader/libvulkan.lds \
      -Wl,-Bsymbolic "${pic_objs[@]}" -o "$OUT/vkl_libvulkan/libvulkan.so.1" -ldl -lpthread -lm
    cp conformance/deviations/khronos.tsv "$OUT/vkl_deviations/khronos.tsv"
    # The Khronos side: $VKL_KHRONOS_LOADER, else Debian's source built here (the OSS-Fuzz and
    # ClusterFuzzLite images: their runner's glibc is older than Debian's binary needs), else the
    # system's library.
    khr_src=${KHRONOS_LOADER_SRC:-${SRC:-/nonexistent}/khronos-loader}
    rm -rf "$OUT/vkl_khronos"
    if [ -z "${VKL_KHRONOS_LOADER:-}" ] && [ -f "$khr_src/loader/loader.c" ]; then
      if ! KHR_WORK="$B/khronos" bash fuzz/oss-fuzz/build_khronos.sh "$khr_src" "$OUT/vkl_khronos"; then
        # Never the whole build for the reference: the other targets, and this one with the
        # system's loader (or VKL_DIFF_KHRONOS at run time), still work.
        echo "build.sh: building the Khronos loader from $khr_src failed (above); falling back" >&2
        rm -rf "$OUT/vkl_khronos"
        if [ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ]; then
          mkdir -p "$OUT/vkl_khronos"
          cp -L /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$OUT/vkl_khronos/libvulkan.so.1"
        fi
      fi
    else
      khr=${VKL_KHRONOS_LOADER:-/usr/lib/x86_64-linux-gnu/libvulkan.so.1}
      if [ -e "$khr" ]; then
        mkdir -p "$OUT/vkl_khronos"
        cp -L "$khr" "$OUT/vkl_khronos/libvulkan.so.1"
      else
        echo "build.sh: no Khronos loader at $khr: loader_diff_fuzzer needs VKL_DIFF_KHRONOS at run time" >&2
      fi
    fi
  fi

  # The mock drivers it dlopen()s: ASan/UBSan like the rest, but no coverage instrumentation
  # (the engines keep pointers into the counters of every instrumented module, and the fuzzer
  # dlclose()s the mocks after each input) and no source-based coverage either.
  MOCK_CFLAGS=$(echo " $CFLAGS " | sed -E \
    -e 's/ -fsanitize-coverage=[^ ]*//g' -e 's/ -fprofile-instr-generate//g' \
    -e 's/ -fcoverage-mapping//g' -e 's/fuzzer-no-link,?//g' -e 's/,( |$)/\1/g' \
    -e 's/ -fsanitize=( |$)/\1/g')
  # ASan keeps the metadata of every instrumented global of every module ever loaded, so globals
  # of the mocks (loaded for every input) are not instrumented.
  case " $MOCK_CFLAGS " in *address*) MOCK_CFLAGS="$MOCK_CFLAGS -mllvm -asan-globals=0" ;; esac
  mkdir -p "$OUT/vkl_mock_icd"
  $MOCK_CC $MOCK_CFLAGS -fPIC -std=c89 -w -c "$CJSON_SRC/cJSON.c" -o "$B/mockobj/cJSON.o"
  # VkResult names from vk.xml (tools/vkgen), compiled the mocks' way.
  $MOCK_CC $MOCK_CFLAGS $COMMON -fPIC -c "$B/gen/loader/vkl_gen_results.c" -o "$B/mockobj/results.o"
  python3 fuzz/oss-fuzz/mock_variants.py mock_icd/variants.bzl | while read -r line; do
    v=${line%% *}
    defs=${line#* }; defs=${defs%% |*}
    exports=${line##*| }
    echo "{ global: ${exports//,/; }; local: *; };" > "$B/mockobj/$v.lds"
    # The mock's sources: mock_icd/SOURCES, the list //mock_icd:mock_icd_srcs also builds from.
    objs=()
    for src in $(grep '\.c$' mock_icd/SOURCES) "$B/gen/mock_icd/mock_gen_commands.c"; do
      $MOCK_CC $MOCK_CFLAGS $COMMON -fPIC $defs -c "$src" -o "$B/mockobj/mock_${v}_$(basename "$src" .c).o"
      objs+=("$B/mockobj/mock_${v}_$(basename "$src" .c).o")
    done
    $MOCK_CC $MOCK_CFLAGS -shared -fPIC -Wl,--version-script="$B/mockobj/$v.lds" \
      "${objs[@]}" "$B/mockobj/results.o" "$B/mockobj/cJSON.o" -o "$OUT/vkl_mock_icd/libmock_icd_$v.so" \
      -ldl -lpthread -lm
  done
  # The mock layers (the world's layer slots), built the same way: $OUT/vkl_mock_layer.
  mkdir -p "$OUT/vkl_mock_layer"
  python3 fuzz/oss-fuzz/mock_variants.py mock_layers/variants.bzl | while read -r line; do
    v=${line%% *}
    defs=${line#* }; defs=${defs%% |*}
    exports=${line##*| }
    echo "{ global: ${exports//,/; }; local: *; };" > "$B/mockobj/layer_$v.lds"
    # The layer's sources: mock_layer.c and the files it is split into (//mock_layers:mock_layer_srcs).
    objs=()
    for src in mock_layers/mock_layer*.c; do
      $MOCK_CC $MOCK_CFLAGS $COMMON -fPIC $defs -c "$src" -o "$B/mockobj/layer_${v}_$(basename "$src" .c).o"
      objs+=("$B/mockobj/layer_${v}_$(basename "$src" .c).o")
    done
    $MOCK_CC $MOCK_CFLAGS -shared -fPIC -Wl,--version-script="$B/mockobj/layer_$v.lds" \
      "${objs[@]}" "$B/mockobj/cJSON.o" -o "$OUT/vkl_mock_layer/libmock_layer_$v.so" \
      -ldl -lpthread -lm
  done
fi

# ---- seed corpora (seeds + every regression) and dictionaries ----------------------------------
zipdir() {  # zipdir OUT.zip DIR...
  local zip=$1; shift
  rm -f "$zip"
  python3 - "$zip" "$@" <<'PY'
import os, sys, zipfile
out, dirs = sys.argv[1], sys.argv[2:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isfile(p) and not name.startswith(("README", ".")):
                z.write(p, os.path.basename(d) + "_" + name)
PY
}
# Large-array seeds (generated, several MB, not checked in) and each target's libFuzzer options
# (-timeout; OSS-Fuzz and ClusterFuzzLite read $OUT/<target>.options, ci/fuzz_smoke and
# fuzz/tools/campaign.sh too): a superlinear walk over a list is a timeout (RULE_ADVERSARIAL_INPUT).
python3 fuzz/tools/large_seeds.py "$B/large_seeds" > /dev/null
for t in $TARGETS; do
  [ -x "$OUT/$t" ] || continue
  zipdir "$OUT/${t}_seed_corpus.zip" "fuzz/corpus/$t" "fuzz/regressions/$t" "$B/large_seeds/$t"
  [ -f "fuzz/dicts/$t.dict" ] && cp "fuzz/dicts/$t.dict" "$OUT/$t.dict"
  [ -f "fuzz/options/$t.options" ] && cp "fuzz/options/$t.options" "$OUT/$t.options"
done
echo "build.sh: built $(for t in $TARGETS; do [ -x "$OUT/$t" ] && printf '%s ' "$t"; done)in $OUT"
# A target that did not link (a loader source missing from the lists above, say) is a failed
# build, not a smaller one: OSS-Fuzz, ci/fuzz_smoke and the campaign bundle would go on without it.
missing=$(for t in $TARGETS; do [ -x "$OUT/$t" ] || printf '%s ' "$t"; done)
if [ -n "$missing" ]; then
  echo "build.sh: FAILED to build ${missing}(the compiler's messages are above)" >&2
  exit 1
fi
