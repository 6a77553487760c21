#!/bin/bash -eu
# The build inputs of the OSS-Fuzz image (fuzz/oss-fuzz/Dockerfile) and of the ClusterFuzzLite image
# (.clusterfuzzlite/Dockerfile), in one place: both Dockerfiles COPY this file and RUN it on top of
# gcr.io/oss-fuzz-base/base-builder, which sets $SRC.
#  - python3: tools/vkgen and the seed/variant scripts; X11/XCB/Wayland headers: the WSI types the
#    loader's entry points use; the XRandR header too: the Khronos loader that build_khronos.sh
#    compiles for loader_diff_fuzzer is built, as Debian builds it, with xlib_xrandr as well;
#  - the Vulkan headers and registry the loader is generated from (Debian bookworm ships 1.3.239),
#    into $SRC/Vulkan-Headers.
# cJSON's source is not fetched here: both Dockerfiles take it from Debian's package manager in a
# stage of their own (cjson_source.sh) and copy it to $SRC/cjson.
: "${SRC:?the base-builder image sets SRC}"

apt-get update
apt-get install -y --no-install-recommends \
  python3 ca-certificates libx11-dev libxcb1-dev libwayland-dev libxrandr-dev

git clone --depth 1 --branch v1.3.239 https://github.com/KhronosGroup/Vulkan-Headers "$SRC/Vulkan-Headers"
