#!/usr/bin/env bash
# `bazel run //:dist [-- --out=DIR]`: copies the release tarball (tools/dist :tarball) to DIR
# (default: the directory bazel was run from) and prints its path and SHA-256.
set -euo pipefail
out=${BUILD_WORKING_DIRECTORY:-$PWD}
for a in "$@"; do
  case "$a" in
    --out=*) out=${a#--out=} ;;
    -h|--help) echo "usage: bazel run //:dist [-- --out=DIR]"; exit 0 ;;
    *) echo "dist: unknown argument '$a' (usage: bazel run //:dist [-- --out=DIR])" >&2; exit 2 ;;
  esac
done
case "$out" in /*) ;; *) out=${BUILD_WORKING_DIRECTORY:-$PWD}/$out ;; esac
src=""
for c in "${RUNFILES_DIR:-$0.runfiles}/vk_loader_harness/tools/dist/ldp-check-linux-x86_64.tar.gz" \
         "$(dirname "$0")/ldp-check-linux-x86_64.tar.gz"; do
  if [ -f "$c" ]; then src=$c; break; fi
done
[ -n "$src" ] || { echo "dist: the tarball is not in the runfiles" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/ldp-check-linux-x86_64.tar.gz"
cp "$src" "$out/ldp-check-linux-x86_64.tar.gz"
chmod 0644 "$out/ldp-check-linux-x86_64.tar.gz"
echo "$out/ldp-check-linux-x86_64.tar.gz"
(cd "$out" && sha256sum ldp-check-linux-x86_64.tar.gz)
