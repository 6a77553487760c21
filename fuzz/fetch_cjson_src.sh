#!/usr/bin/env bash
# Fetches Debian's `cjson` source package with `apt-get source` and unpacks it (Debian patches
# applied) into a cache directory OUTSIDE the repository, so fuzz builds compile an instrumented
# cJSON instead of linking the uninstrumented libcjson.so. Third-party source is never vendored.
#
#   fuzz/fetch_cjson_src.sh            # prints the directory that holds cJSON.c and cJSON.h
#
# Directory: $VKL_CJSON_SRC, else ${XDG_CACHE_HOME:-$HOME/.cache}/vk-loader-harness/cjson-src
# (the same default the Bazel repository @cjson_source and fuzz/oss-fuzz/build.sh use).
# Needs a deb-src entry for bookworm (ci/bootstrap writes one) and dpkg-dev (build-essential).
# Idempotent: does nothing, and touches no network, once the directory is populated.
set -euo pipefail

dest=${VKL_CJSON_SRC:-${XDG_CACHE_HOME:-$HOME/.cache}/vk-loader-harness/cjson-src}
if [ -f "$dest/cJSON.c" ] && [ -f "$dest/cJSON.h" ]; then
  echo "$dest"
  exit 0
fi

# Same source version as the installed binary package, when there is one.
ver=$(dpkg-query -W -f='${source:Version}' libcjson-dev 2>/dev/null || true)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch() {
  (cd "$work" && if [ -n "$ver" ]; then apt-get source -qq "cjson=$ver" || apt-get source -qq cjson;
                 else apt-get source -qq cjson; fi) >"$work/log" 2>&1
}
if ! fetch; then
  # The deb-src index may never have been downloaded (ci/bootstrap only writes the entry).
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null 2>&1 || true
  if ! fetch; then
    cat "$work/log" >&2
    echo "fetch_cjson_src: 'apt-get source cjson' failed; is there a deb-src entry (ci/bootstrap)?" >&2
    exit 1
  fi
fi
tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'cjson-*' | head -n1)
if [ -z "$tree" ] || [ ! -f "$tree/cJSON.c" ]; then
  echo "fetch_cjson_src: unpacked source has no cJSON.c" >&2
  exit 1
fi
echo "apt-get source cjson${ver:+=$ver} ($(date -u +%Y-%m-%dT%H:%M:%SZ))" >"$tree/VKL_SOURCE"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.tmp.$$"
mv "$tree" "$dest.tmp.$$"
rm -rf "$dest"
mv "$dest.tmp.$$" "$dest"
echo "$dest"
