#!/bin/bash -eu
# OSS-Fuzz's build.sh for vk-loader-harness (this directory is projects/vk-loader-harness in
# google/oss-fuzz): the build itself is the repository's fuzz/build.sh, which this only calls, as
# .clusterfuzzlite/build.sh does. Run from a checkout (ci/fuzz_smoke, fuzz/tools/*), it calls the
# fuzz/build.sh of that checkout; in the OSS-Fuzz image ($SRC/build.sh), the clone's.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -f "$here/../build.sh" ] && [ -d "$here/../../loader" ]; then
  exec bash "$here/../build.sh" "$@"
fi
exec bash "$SRC/vk-loader-harness/fuzz/build.sh" "$@"
