#!/bin/bash -eu
# The build inputs of the OSS-Fuzz image (fuzz/oss-fuzz/Dockerfile) and of the ClusterFuzzLite image
# (.clusterfuzzlite/Dockerfile), in one place: both Dockerfiles COPY this file and RUN it on top of
# gcr.io/oss-fuzz-base/base-builder, which sets $SRC.
#  - python3: tools/vkgen and the seed/variant scripts; dpkg-dev: dpkg-source for the cjson source
#    package; X11/XCB/Wayland headers: the WSI types the loader's entry points use;
#  - the Vulkan headers and registry the loader is generated from (Debian bookworm ships 1.3.239),
#    into $SRC/Vulkan-Headers;
#  - cJSON from Debian's cjson source package (Debian patches applied), unpacked into $SRC/cjson and
#    compiled with the fuzzing flags by build.sh; checksums as in the package's .dsc.
: "${SRC:?the base-builder image sets SRC}"

apt-get update
apt-get install -y --no-install-recommends \
  python3 dpkg-dev xz-utils curl ca-certificates libx11-dev libxcb1-dev libwayland-dev

git clone --depth 1 --branch v1.3.239 https://github.com/KhronosGroup/Vulkan-Headers "$SRC/Vulkan-Headers"

tmp=$(mktemp -d)
cd "$tmp"
base=https://deb.debian.org/debian/pool/main/c/cjson
curl -fsSLO "$base/cjson_1.7.15-1%2Bdeb12u4.dsc"
curl -fsSLO "$base/cjson_1.7.15.orig.tar.gz"
curl -fsSLO "$base/cjson_1.7.15-1%2Bdeb12u4.debian.tar.xz"
for f in *%2B*; do mv "$f" "${f//%2B/+}"; done
printf '%s  %s\n' \
  764c2de141d680f4fb4cada30c526dacaa30ead061b9b9c34f2b81e2df0f8439 cjson_1.7.15-1+deb12u4.dsc \
  5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2 cjson_1.7.15.orig.tar.gz \
  afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb cjson_1.7.15-1+deb12u4.debian.tar.xz \
  | sha256sum -c -
dpkg-source --no-check -x cjson_1.7.15-1+deb12u4.dsc "$SRC/cjson"
cd /
rm -rf "$tmp"
