#!/bin/bash -eu
# ClusterFuzzLite runs $SRC/build.sh in the image .clusterfuzzlite/Dockerfile builds; the build is
# the one OSS-Fuzz uses (and ci/fuzz_smoke checks): fuzz/oss-fuzz/build.sh.
exec "$SRC/vk-loader-harness/fuzz/oss-fuzz/build.sh" "$@"
