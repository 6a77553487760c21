#!/bin/bash -eu
# khronos_source.sh DEST: Debian's vulkan-loader source package (the Khronos loader, the version
# conformance/deviations/khronos.tsv describes: 1.3.239 in Debian 12), Debian's patches applied,
# unpacked into DEST with `apt-get source`, like cjson_source.sh: the package manager picks the
# current revision of Debian stable and checks it against the signed archive index; nothing is
# pinned to one URL. Run as root in a Debian image (the `khronos` stage of fuzz/oss-fuzz/Dockerfile
# and .clusterfuzzlite/Dockerfile); fuzz/build.sh compiles the result, uninstrumented, into
# $OUT/vkl_khronos/libvulkan.so.1 with fuzz/oss-fuzz/build_khronos.sh ($SRC/khronos-loader).
#
# The loader's build needs the Vulkan headers and registry of the same version. Debian 12's
# vulkan-loader source carries them (vulkan-headers/); a release whose loader source does not (from
# Debian 13 on the headers are a source package of their own) gets `apt-get source vulkan-headers`
# too, unpacked into DEST/vulkan-headers. DEST/VKL_SOURCE names what was fetched.
# APT_SOURCES names the deb822 sources file to extend with deb-src (default: the image's
# /etc/apt/sources.list.d/debian.sources).
#
# The image must build even when the source cannot be had (a mirror that lists the package but
# serves no tarball has been seen): DEST is then an empty tree whose VKL_SOURCE says why, the exit
# status is 0, and fuzz/build.sh falls back to the image's own libvulkan.so.1 (or none).
dest=${1:?usage: khronos_source.sh DEST}
unavailable() {
  echo "khronos_source.sh: $1; loader_diff_fuzzer will compare with the image's libvulkan.so.1, if any" >&2
  rm -rf "$dest" "${work:-/nonexistent}"
  mkdir -p "$dest"
  echo "unavailable: $1" >"$dest/VKL_SOURCE"
  exit 0
}
sources=${APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
# Debian images list binary packages only; ask for the sources of the same suites too.
sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends dpkg-dev xz-utils >/dev/null
work=$(mktemp -d)
(cd "$work" && apt-get source -qq vulkan-loader) || unavailable "apt-get source vulkan-loader failed"
tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'vulkan-loader-*' | head -n1)
[ -n "$tree" ] && [ -f "$tree/loader/loader.c" ] && [ -d "$tree/loader/generated" ] || {
  unavailable "apt-get source vulkan-loader gave no loader/loader.c and loader/generated/"
}
version() { sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$1/debian/changelog" 2>/dev/null; }
note="apt-get source vulkan-loader: $(basename "$tree") ($(version "$tree"))"
headers=$(find "$tree" -path "$tree/loader" -prune -o -path '*/include/vulkan/vulkan_core.h' -print | head -n1)
if [ -z "$headers" ]; then
  (cd "$work" && apt-get source -qq vulkan-headers) || unavailable "apt-get source vulkan-headers failed"
  htree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'vulkan-headers-*' | head -n1)
  [ -n "$htree" ] && [ -f "$htree/include/vulkan/vulkan_core.h" ] || {
    unavailable "no Vulkan headers in the loader source, and apt-get source vulkan-headers gave none"
  }
  mv "$htree" "$tree/vulkan-headers"
  note="$note; apt-get source vulkan-headers: $(basename "$htree") ($(version "$tree/vulkan-headers"))"
fi
echo "$note" >"$tree/VKL_SOURCE"
rm -rf "$dest"
mv "$tree" "$dest"
rm -rf "$work"
