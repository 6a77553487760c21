#!/bin/bash -eu
# ClusterFuzzLite runs $SRC/build.sh in the image .clusterfuzzlite/Dockerfile builds; the build is
# the repository's one fuzz build script, fuzz/build.sh (OSS-Fuzz's build.sh calls it too).
exec bash "$SRC/vk-loader-harness/fuzz/build.sh" "$@"
