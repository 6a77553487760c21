#!/usr/bin/env bash
# `bazel run //:install -- --prefix=DIR` (tools/dist/install.sh), run into $TEST_TMPDIR:
#   - the files and links the Khronos loader's install makes: lib/libvulkan.so.<version> (e.g.
#     libvulkan.so.1.3.239: the built loader, byte for byte; Debian's Khronos loader of the same
#     headers has the same file name), libvulkan.so.1 -> it, libvulkan.so -> libvulkan.so.1,
#     lib/pkgconfig/vulkan.pc; no headers;
#   - <version> = <major>.<minor>.<VK_HEADER_VERSION> of the Vulkan headers the loader is built
#     from (VK_HEADER_VERSION_COMPLETE; vulkan_core.h agrees with vk.xml);
#   - pkg-config with PKG_CONFIG_PATH finds it (--modversion, --libs, --cflags);
#   - a small C program compiled and linked with `cc $(pkg-config --cflags --libs vulkan)` needs
#     libvulkan.so.1 and, run with LD_LIBRARY_PATH=<prefix>/lib, gets vkEnumerateInstanceVersion
#     from the installed file;
#   - DESTDIR staging, relative --libdir, usage errors.
set -euo pipefail
R=${TEST_SRCDIR}/${TEST_WORKSPACE}
install_bin=$R/tools/dist/install
built=$R/loader/libvulkan.so.1
T=$TEST_TMPDIR
export RUNFILES_DIR=$TEST_SRCDIR
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

# The headers the loader is built from (@vulkan_headers: Debian's, or a checkout through
# tools/vulkan_headers/overlay.sh), not necessarily /usr/include's.
core=$TEST_SRCDIR/vulkan_headers/vulkan/vulkan_core.h
header_patch=$(sed -n 's/^#define VK_HEADER_VERSION \([0-9][0-9]*\).*/\1/p' "$core")
# #define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, 3, VK_HEADER_VERSION)
majmin=$(sed -n 's/^#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION( *[0-9]*, *\([0-9]*\), *\([0-9]*\),.*/\1.\2/p' "$core")
version=$majmin.$header_patch
echo "expected version: $version (vulkan_core.h VK_HEADER_VERSION_COMPLETE)"

# Usage errors.
set +e
"$install_bin" >"$T/noargs.out" 2>&1; rc=$?
set -e
check "no --prefix: exit 2" [ "$rc" -eq 2 ]
check "no --prefix: says so" grep -q -- '--prefix=DIR is required' "$T/noargs.out"
set +e
"$install_bin" --prefix="$T/x" --bogus >/dev/null 2>&1; rc=$?
set -e
check "unknown argument: exit 2" [ "$rc" -eq 2 ]
check "unknown argument: nothing installed" [ ! -e "$T/x" ]

P=$T/prefix
"$install_bin" --prefix="$P"
L=$P/lib
check "lib/libvulkan.so.$version is a regular file" test -f "$L/libvulkan.so.$version" -a ! -L "$L/libvulkan.so.$version"
check "lib/libvulkan.so.$version is the built loader" cmp -s "$built" "$L/libvulkan.so.$version"
check "lib/libvulkan.so.$version is executable" test -x "$L/libvulkan.so.$version"
check "libvulkan.so.1 -> libvulkan.so.$version" [ "$(readlink "$L/libvulkan.so.1")" = "libvulkan.so.$version" ]
check "libvulkan.so -> libvulkan.so.1" [ "$(readlink "$L/libvulkan.so")" = "libvulkan.so.1" ]
khronos_real=$(readlink /usr/lib/x86_64-linux-gnu/libvulkan.so.1 || true)
if [ -n "$khronos_real" ] && [ "$(pkg-config --modversion vulkan 2>/dev/null || true)" = "$version" ]; then
  check "same file name as Debian's Khronos loader ($khronos_real)" [ "$khronos_real" = "libvulkan.so.$version" ]
fi
check "soname libvulkan.so.1" sh -c "readelf -d '$L/libvulkan.so.$version' | grep -q 'Library soname: \[libvulkan.so.1\]'"
check "no headers installed (Vulkan-Headers' job)" [ ! -e "$P/include" ]
check "nothing else in the prefix" [ "$(cd "$P" && find . | LC_ALL=C sort | tr '\n' ' ')" = ". ./lib ./lib/libvulkan.so ./lib/libvulkan.so.1 ./lib/libvulkan.so.$version ./lib/pkgconfig ./lib/pkgconfig/vulkan.pc " ]
pc=$L/pkgconfig/vulkan.pc
echo "--- vulkan.pc"; cat "$pc"; echo "---"
for f in "prefix=$P" 'exec_prefix=${prefix}' 'libdir=${exec_prefix}/lib' 'includedir=${prefix}/include' \
         'Name: Vulkan-Loader' "Version: $version" 'Libs: -L${libdir} -lvulkan' 'Cflags: -I${includedir}'; do
  check "vulkan.pc: $f" grep -qxF "$f" "$pc"
done
check "vulkan.pc: Description" grep -q '^Description: .' "$pc"

export PKG_CONFIG_PATH=$L/pkgconfig
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR || true
check "pkg-config --modversion vulkan = $version" [ "$(pkg-config --modversion vulkan)" = "$version" ]
check "pkg-config --libs vulkan = -L$L -lvulkan" [ "$(pkg-config --libs vulkan | sed 's/ *$//')" = "-L$L -lvulkan" ]
check "pkg-config --cflags vulkan = -I$P/include" [ "$(pkg-config --cflags vulkan | sed 's/ *$//')" = "-I$P/include" ]
check "pkg-config --variable=libdir" [ "$(pkg-config --variable=libdir vulkan)" = "$L" ]

# A program built against the installed loader.
cat >"$T/prog.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <vulkan/vulkan.h>

int main(void) {
    uint32_t v = 0;
    VkResult r = vkEnumerateInstanceVersion(&v);
    Dl_info info;
    if (!dladdr((void *)vkEnumerateInstanceVersion, &info) || !info.dli_fname) return 3;
    printf("%d %u.%u %s\n", (int)r, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), info.dli_fname);
    return r == VK_SUCCESS ? 0 : 1;
}
C
# shellcheck disable=SC2046
check "cc \$(pkg-config --cflags --libs vulkan) links" \
  cc -std=c11 -Wall -Werror $(pkg-config --cflags vulkan) "$T/prog.c" -o "$T/prog" $(pkg-config --libs vulkan) -ldl
if [ -x "$T/prog" ]; then
  check "the program needs libvulkan.so.1" sh -c "readelf -d '$T/prog' | grep -q 'Shared library: \[libvulkan.so.1\]'"
  if readelf -d "$built" | grep -qE 'lib(a|ub|t)san'; then
    echo "note: sanitizer build of the loader (its runtime in DT_NEEDED): the uninstrumented program is not run"
  else
    out=$(env -i PATH=/usr/bin:/bin HOME="$T" LD_LIBRARY_PATH="$L" "$T/prog") || { echo "FAIL: the program: $out"; fail=1; }
    echo "program: $out"
    check "the program ran the installed loader" [ "${out#* * }" = "$L/libvulkan.so.1" ]
    check "vkEnumerateInstanceVersion VK_SUCCESS, $majmin" [ "${out% *}" = "0 $majmin" ]
  fi
fi

# DESTDIR staging: files under DESTDIR, vulkan.pc names the final prefix; relative --libdir.
DESTDIR=$T/stage "$install_bin" --prefix=/opt/vkl --libdir=lib64 >/dev/null
check "DESTDIR: library staged" test -f "$T/stage/opt/vkl/lib64/libvulkan.so.$version"
check "DESTDIR: vulkan.pc names the final prefix" grep -qxF 'prefix=/opt/vkl' "$T/stage/opt/vkl/lib64/pkgconfig/vulkan.pc"
check "--libdir=lib64 in vulkan.pc" grep -qxF 'libdir=${exec_prefix}/lib64' "$T/stage/opt/vkl/lib64/pkgconfig/vulkan.pc"

# Installing twice replaces the files and keeps the links right.
"$install_bin" --prefix="$P" >/dev/null
check "reinstall: links intact" [ "$(readlink "$L/libvulkan.so.1")" = "libvulkan.so.$version" ]

[ $fail -eq 0 ] && echo "PASS"
exit $fail
