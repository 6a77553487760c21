#!/bin/bash -eu
# build_khronos.sh SRC_TREE OUT_DIR: compiles Debian's vulkan-loader source (khronos_source.sh's
# tree: loader/, loader/generated/, vulkan-headers/) into OUT_DIR/libvulkan.so.1, the reference
# loader fuzz/loader_diff_fuzzer compares ours with, where Debian's binary cannot be used (OSS-Fuzz
# and ClusterFuzzLite run their fuzzers on Ubuntu 20.04, glibc 2.31; Debian 12's library needs
# GLIBC_2.34). fuzz/build.sh calls it with $SRC/khronos-loader.
#
# Not instrumented: it is the reference, not the code under test (no $CFLAGS, no sanitizer, no
# coverage). No CMake either: the C sources are compiled directly, configured as Debian's package
# is (debian/rules: dh's CMake build, CMAKE_BUILD_TYPE=Release, the CMake defaults below), which
# `strings`/`nm -D` of Debian's libvulkan.so.1 confirm:
#   SYSCONFDIR=/etc, FALLBACK_CONFIG_DIRS=/etc/xdg, FALLBACK_DATA_DIRS=/usr/local/share:/usr/share,
#   VK_ENABLE_BETA_EXTENSIONS (it exports vkCmdEncodeVideoKHR), secure_getenv, only vk* exported
#   (-fvisibility=hidden), no -Bsymbolic, WSI platforms xcb, xlib, xlib_xrandr and wayland;
#   loader_cmake_config.h from loader_cmake_config.h.in with each `#cmakedefine HAVE_<FUNC>` decided
#   by linking a call, as CMake's check_function_exists does; the x86-64 assembly trampolines for
#   unknown functions (unknown_ext_chain_gas_x86.S with the gen_defines.asm that asm_offset.c
#   writes), as Debian's build uses them.
# Checks, each fatal: the headers' VK_HEADER_VERSION is the source package's version; the library
# links with --no-undefined; it exports exactly the functions khronos_<version>.exports lists (when
# this directory has that file: 1.3.239); dlopen()ed, its vkEnumerateInstanceVersion answers that
# version. OUT_DIR/BUILD_INFO.txt records the source, compiler, flags, platforms, the unknown-function
# path and the newest GLIBC_ symbol version the library needs.
#
# Environment (all optional):
#   KHR_CC        compiler (default $CC, plain clang when $CC is afl-*, else cc)
#   KHR_CFLAGS    optimisation and hardening flags (default: Debian's effective release flags)
#   KHR_WSI       platforms to build (default "xcb xlib xlib_xrandr wayland"); one whose header is
#                 missing is left out with a warning and named in BUILD_INFO.txt
#   KHR_UNKNOWN_FUNCTIONS  asm (default; falls back to the C trampolines unknown_ext_chain.c, with
#                 a warning, where the assembly cannot be built) or c
#   KHR_EXPORTS   the export list to check against (default khronos_<version>.exports beside this)
#   KHR_WORK      scratch directory (default a new temporary one, removed at the end)
#   VULKAN_HEADERS  a Vulkan-Headers tree, used only when the source has no headers of its own
set -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tree=$(cd "${1:?usage: build_khronos.sh SRC_TREE OUT_DIR}" && pwd)
out=${2:?usage: build_khronos.sh SRC_TREE OUT_DIR}
die() { echo "build_khronos.sh: $*" >&2; exit 1; }
warn() { echo "build_khronos.sh: warning: $*" >&2; }
[ -f "$tree/loader/loader.c" ] || die "$tree is not a vulkan-loader source tree (no loader/loader.c)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -n "${KHR_CC:-}" ]; then KCC=$KHR_CC
else
  case "${CC:-}" in
    "") KCC=cc ;;
    *afl-*) KCC=clang ;;   # AFL++ would instrument it
    *) KCC=$CC ;;
  esac
fi
# Debian: dpkg-buildflags (-O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2, -Wl,-z,relro), then
# CMake's Release flags (-O3 -DNDEBUG, last, so -O3 wins); the loader's own -fno-strict-aliasing
# -fno-builtin-memcmp -fvisibility=hidden.
KCFLAGS=${KHR_CFLAGS:--O3 -DNDEBUG -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fno-strict-aliasing -fno-builtin-memcmp}
KCFLAGS="$KCFLAGS -fPIC -fvisibility=hidden -w"

if [ -n "${KHR_WORK:-}" ]; then B=$KHR_WORK; rm -rf "$B"; mkdir -p "$B"
else B=$(mktemp -d); trap 'rm -rf "$B"' EXIT; fi
mkdir -p "$B/obj"

# ---- the source's version and its headers --------------------------------------------------
pkg_version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$tree/debian/changelog" 2>/dev/null || true)
upstream=${pkg_version%%-*}                            # 1.3.239.0
version=$(echo "$upstream" | cut -d. -f1-3)            # 1.3.239
core=$(find "$tree" -path "$tree/loader" -prune -o -path '*/include/vulkan/vulkan_core.h' -print | head -n1)
if [ -z "$core" ] && [ -n "${VULKAN_HEADERS:-}" ]; then core=$VULKAN_HEADERS/include/vulkan/vulkan_core.h; fi
[ -f "$core" ] || die "no include/vulkan/vulkan_core.h in $tree (nor \$VULKAN_HEADERS)"
inc=$(dirname "$(dirname "$core")")
header_version=$(sed -n 's/^#define VK_HEADER_VERSION \([0-9][0-9]*\).*/\1/p' "$core")
[ -n "$header_version" ] || die "no VK_HEADER_VERSION in $core"
if [ -n "$version" ]; then
  [ "${version##*.}" = "$header_version" ] ||
    die "the headers ($core) are version $header_version, the source package $pkg_version"
else
  warn "no debian/changelog: version taken from the headers ($header_version)"
  version=1.3.$header_version
fi

# ---- configuration: platforms and loader_cmake_config.h -------------------------------------
has_header() { echo "#include <$1>" | $KCC -I"$inc" -E -x c - >/dev/null 2>&1; }
defs=(-D_GNU_SOURCE -DLOADER_DYNAMIC_LIB -DVK_ENABLE_BETA_EXTENSIONS
  '-DSYSCONFDIR="/etc"' '-DFALLBACK_CONFIG_DIRS="/etc/xdg"'
  '-DFALLBACK_DATA_DIRS="/usr/local/share:/usr/share"')
built_wsi=() missing_wsi=()
for p in ${KHR_WSI:-xcb xlib xlib_xrandr wayland}; do
  case $p in
    xcb) h=xcb/xcb.h d=VK_USE_PLATFORM_XCB_KHR ;;
    xlib) h=X11/Xlib.h d=VK_USE_PLATFORM_XLIB_KHR ;;
    xlib_xrandr) h=X11/extensions/Xrandr.h d=VK_USE_PLATFORM_XLIB_XRANDR_EXT ;;
    wayland) h=wayland-client.h d=VK_USE_PLATFORM_WAYLAND_KHR ;;
    *) die "unknown platform $p in KHR_WSI" ;;
  esac
  if has_header "$h"; then defs+=("-D$d"); built_wsi+=("$p")
  else warn "no <$h>: the $p platform is left out (Debian's build has it)"; missing_wsi+=("$p"); fi
done

# What CMake's check_function_exists(FUNC VAR) decides: does a call to FUNC link?
function_links() {
  printf 'char %s(void);\nint main(void) { return (int)%s(); }\n' "$1" "$1" >"$B/check.c"
  $KCC -w "$B/check.c" -o "$B/check" >/dev/null 2>&1
}
cfg_in=$tree/loader/loader_cmake_config.h.in
if [ -f "$cfg_in" ]; then
  : >"$B/loader_cmake_config.h"
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ ^#cmakedefine(01)?[[:space:]]+(HAVE_[A-Za-z0-9_]+) ]]; then
      var=${BASH_REMATCH[2]} fn=$(echo "${BASH_REMATCH[2]#HAVE_}" | tr 'A-Z' 'a-z')
      case $var in *_H) die "$cfg_in: $var is a header check; build_khronos.sh knows function checks only" ;; esac
      if function_links "$fn"; then yes=1; else yes=0; fi
      if [ -n "${BASH_REMATCH[1]}" ]; then echo "#define $var $yes"
      elif [ $yes = 1 ]; then echo "#define $var"
      else echo "/* #undef $var */"; fi
    elif [[ $line == *"#cmakedefine"* || $line == *@*@* ]]; then
      die "$cfg_in: cannot configure \"$line\" (extend build_khronos.sh)"
    else
      echo "$line"
    fi
  done <"$cfg_in" >"$B/loader_cmake_config.h"
else
  defs+=(-DVULKAN_NON_CMAKE_BUILD)
fi
incs=(-I"$B" -I"$tree/loader" -I"$tree/loader/generated" -I"$inc")

# ---- sources ---------------------------------------------------------------------------------
# Every C file of loader/ and loader/generated/ but those of other platforms, the generator of
# gen_defines.asm, the C unknown-function trampolines (below) and any file another one #includes.
srcs=()
for f in "$tree"/loader/*.c "$tree"/loader/generated/*.c; do
  [ -e "$f" ] || continue
  n=$(basename "$f")
  case $n in
    asm_offset.c | unknown_ext_chain.c | *windows* | dxgi_loader.c | *fuchsia* | apple*) continue ;;
  esac
  if grep -lq "#include \"$n\"" "$tree"/loader/*.c "$tree"/loader/*.h 2>/dev/null; then continue; fi
  srcs+=("$f")
done

unknown=${KHR_UNKNOWN_FUNCTIONS:-asm}
asm_src=$tree/loader/unknown_ext_chain_gas_x86.S
gen_defines() {  # gen_defines.asm into $B, as the loader's CMake build makes it
  if [ -f "$tree/scripts/parse_asm_values.py" ]; then
    $KCC $KCFLAGS "${defs[@]}" "${incs[@]}" -S "$tree/loader/asm_offset.c" -o "$B/asm_offset.s" &&
      python3 "$tree/scripts/parse_asm_values.py" "$B/gen_defines.asm" "$B/asm_offset.s" GAS \
        "$($KCC --version | grep -qi clang && echo Clang || echo GNU)" x86_64
  else
    $KCC -O2 -w "${defs[@]}" "${incs[@]}" "$tree/loader/asm_offset.c" -o "$B/asm_offset" &&
      (cd "$B" && ./asm_offset GAS)
  fi && [ -s "$B/gen_defines.asm" ]
}
extra_objs=()
if [ "$unknown" = asm ]; then
  if [ "$(uname -m)" = x86_64 ] && [ -f "$asm_src" ] && gen_defines >"$B/asm.log" 2>&1 &&
     $KCC "${defs[@]}" "${incs[@]}" -fPIC -c "$asm_src" -o "$B/obj/unknown_ext_chain_gas_x86.o" >>"$B/asm.log" 2>&1; then
    extra_objs+=("$B/obj/unknown_ext_chain_gas_x86.o")
    if grep -rqs UNKNOWN_FUNCTIONS_SUPPORTED "$tree/loader"; then defs+=(-DUNKNOWN_FUNCTIONS_SUPPORTED); fi
  else
    warn "the assembly unknown-function trampolines could not be built ($(tail -n1 "$B/asm.log" 2>/dev/null)); using the C ones"
    unknown=c
  fi
fi
if [ "$unknown" = c ]; then
  [ -f "$tree/loader/unknown_ext_chain.c" ] || die "no unknown_ext_chain.c for KHR_UNKNOWN_FUNCTIONS=c"
  srcs+=("$tree/loader/unknown_ext_chain.c")
elif [ "$unknown" != asm ]; then
  die "KHR_UNKNOWN_FUNCTIONS must be asm or c"
fi

# ---- compile (a job per core) and link -------------------------------------------------------
jobs=$(nproc 2>/dev/null || echo 2)
objs=()
for f in "${srcs[@]}"; do
  o="$B/obj/$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
  objs+=("$o")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  $KCC $KCFLAGS "${defs[@]}" "${incs[@]}" -c "$f" -o "$o" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || true; done
for o in "${objs[@]}"; do [ -f "$o" ] || die "compiling $(basename "$o" .o) failed"; done
lib=$out/libvulkan.so.1
# shellcheck disable=SC2086
$KCC $KCFLAGS -shared -Wl,-soname,libvulkan.so.1 -Wl,--no-undefined -Wl,-z,relro \
  "${objs[@]}" "${extra_objs[@]}" -o "$lib" -ldl -lpthread -lm

# ---- checks ----------------------------------------------------------------------------------
exports=${KHR_EXPORTS:-$here/khronos_$version.exports}
if [ -f "$exports" ]; then
  nm -D --defined-only "$lib" | awk '{print $3}' | sort >"$B/exports.got"
  grep -v '^#' "$exports" | sort >"$B/exports.want"
  if ! diff -u "$B/exports.want" "$B/exports.got" >"$B/exports.diff"; then
    head -n 40 "$B/exports.diff" >&2
    die "$lib does not export what $(basename "$exports") lists (- missing, + extra)"
  fi
else
  warn "no export list for $version ($exports): exports not checked"
fi
cat >"$B/smoke.c" <<'EOF'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
typedef int32_t (*eiv_fn)(uint32_t *);
int main(int argc, char **argv) {
    void *h = dlopen(argc > 1 ? argv[1] : "", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    eiv_fn eiv = (eiv_fn)(uintptr_t)dlsym(h, "vkEnumerateInstanceVersion");
    uint32_t v = 0;
    if (eiv == NULL || eiv(&v) != 0) return 3;
    printf("%u.%u.%u\n", (v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu);
    return 0;
}
EOF
$KCC -w "$B/smoke.c" -o "$B/smoke" -ldl
answer=$(env -u LD_PRELOAD "$B/smoke" "$lib") || die "dlopen/vkEnumerateInstanceVersion of $lib failed"
[ "$answer" = "$version" ] || die "$lib answers vkEnumerateInstanceVersion $answer, expected $version"

glibc=$(objdump -T "$lib" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n1)
{
  echo "source: $(cat "$tree/VKL_SOURCE" 2>/dev/null || basename "$tree") ($pkg_version)"
  echo "headers: $inc (VK_HEADER_VERSION $header_version)"
  echo "compiler: $KCC ($($KCC --version | head -n1))"
  echo "flags: $KCFLAGS ${defs[*]}"
  echo "platforms: ${built_wsi[*]:-none}${missing_wsi[*]:+ (left out, no headers: ${missing_wsi[*]})}"
  echo "unknown functions: $unknown"
  echo "vkEnumerateInstanceVersion: $answer"
  echo "newest glibc symbol version: $glibc"
} >"$out/BUILD_INFO.txt"
echo "build_khronos.sh: $lib (Khronos loader $answer, $unknown unknown-function trampolines, needs $glibc)" >&2
