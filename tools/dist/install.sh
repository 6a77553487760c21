#!/usr/bin/env bash
# `bazel run //:install -- --prefix=DIR [--libdir=lib] [--includedir=include]`: installs the
# reference loader the way the Khronos loader's install does:
#   LIBDIR/libvulkan.so.<version>          the library (//loader:libvulkan.so.1), e.g. libvulkan.so.1.3.239
#   LIBDIR/libvulkan.so.1 -> libvulkan.so.<version>
#   LIBDIR/libvulkan.so   -> libvulkan.so.1    (the link-time name, -lvulkan)
#   LIBDIR/pkgconfig/vulkan.pc
# <version> is <major>.<minor>.<VK_HEADER_VERSION> (VK_HEADER_VERSION_COMPLETE) of the vk.xml the
# loader is generated from (loader_version.sh). No headers: like the Khronos loader, the Vulkan headers come from the
# Vulkan-Headers package (Debian: libvulkan-dev); vulkan.pc's Cflags name PREFIX/include for them.
# LIBDIR and INCLUDEDIR are relative to PREFIX unless absolute. $DESTDIR, when set, is put in
# front of every path written (staged installs); vulkan.pc still names the final paths.
set -euo pipefail
usage="usage: bazel run //:install -- --prefix=DIR [--libdir=lib] [--includedir=include]"
prefix="" libdir=lib includedir=include
for a in "$@"; do
  case "$a" in
    --prefix=*) prefix=${a#--prefix=} ;;
    --libdir=*) libdir=${a#--libdir=} ;;
    --includedir=*) includedir=${a#--includedir=} ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "install: unknown argument '$a' ($usage)" >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] || { echo "install: --prefix=DIR is required ($usage)" >&2; exit 2; }
case "$prefix" in /*) ;; *) prefix=${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix ;; esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/
case "$libdir" in /*) libdir_abs=$libdir ;; *) libdir_abs=${prefix%/}/$libdir ;; esac
case "$includedir" in /*) includedir_abs=$includedir ;; *) includedir_abs=${prefix%/}/$includedir ;; esac

runfiles=${RUNFILES_DIR:-$0.runfiles}
find_file() {
  local c
  for c in "$runfiles/vk_loader_harness/$1" "${TEST_SRCDIR:-/nonexistent}/vk_loader_harness/$1"; do
    if [ -f "$c" ]; then echo "$c"; return 0; fi
  done
  echo "install: $1 is not in the runfiles" >&2
  return 1
}
lib=$(find_file loader/libvulkan.so.1)
version=$(cat "$(find_file tools/dist/loader_version.txt)")
case "$version" in [0-9]*.[0-9]*.[0-9]*) ;; *) echo "install: bad version '$version'" >&2; exit 1 ;; esac

dest_lib=${DESTDIR:-}$libdir_abs
mkdir -p "$dest_lib/pkgconfig"
real=libvulkan.so.$version
rm -f "$dest_lib/$real"
cp "$lib" "$dest_lib/$real"
chmod 0755 "$dest_lib/$real"
ln -sfn "$real" "$dest_lib/libvulkan.so.1"
ln -sfn libvulkan.so.1 "$dest_lib/libvulkan.so"

# vulkan.pc: the same variables and fields as the Khronos loader's, paths under ${prefix} when
# they are.
pc_path() {  # $1 absolute path; $2 variable to express it relative to
  case "$1" in
    "$prefix") echo "\${$2}" ;;
    "$prefix"/*) echo "\${$2}/${1#"$prefix"/}" ;;
    *) echo "$1" ;;
  esac
}
{
  echo "prefix=$prefix"
  echo "exec_prefix=\${prefix}"
  echo "libdir=$(pc_path "$libdir_abs" exec_prefix)"
  echo "includedir=$(pc_path "$includedir_abs" prefix)"
  echo
  echo "Name: Vulkan-Loader"
  echo "Description: Vulkan Loader (vk-loader-harness reference loader)"
  echo "Version: $version"
  echo "Libs: -L\${libdir} -lvulkan"
  echo "Cflags: -I\${includedir}"
} >"$dest_lib/pkgconfig/vulkan.pc"
chmod 0644 "$dest_lib/pkgconfig/vulkan.pc"

echo "installed the reference loader $version:"
echo "  $dest_lib/$real"
echo "  $dest_lib/libvulkan.so.1 -> $real"
echo "  $dest_lib/libvulkan.so -> libvulkan.so.1"
echo "  $dest_lib/pkgconfig/vulkan.pc"
