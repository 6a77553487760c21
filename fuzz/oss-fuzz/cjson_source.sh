#!/bin/bash -eu
# cjson_source.sh DEST: Debian's cjson source package, Debian's patches applied, unpacked into DEST
# (cJSON.c, cJSON.h, ...) with `apt-get source`: the package manager picks the current revision of
# Debian stable, security updates included, and checks it against the signed archive index; nothing
# is pinned to one revision's URL. Run as root in a Debian image (the `cjson` stage of
# fuzz/oss-fuzz/Dockerfile and .clusterfuzzlite/Dockerfile); build.sh compiles the result with the
# fuzzing flags ($SRC/cjson). APT_SOURCES names the deb822 sources file to extend with deb-src
# (default: the image's /etc/apt/sources.list.d/debian.sources).
dest=${1:?usage: cjson_source.sh DEST}
sources=${APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
# Debian images list binary packages only; ask for the sources of the same suites too.
sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends dpkg-dev xz-utils >/dev/null
work=$(mktemp -d)
(cd "$work" && apt-get source -qq cjson)
tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'cjson-*' | head -n1)
[ -n "$tree" ] && [ -f "$tree/cJSON.c" ] && [ -f "$tree/cJSON.h" ] || {
  echo "cjson_source.sh: apt-get source cjson gave no cJSON.c" >&2
  exit 1
}
echo "apt-get source cjson: $(basename "$tree")" >"$tree/VKL_SOURCE"
rm -rf "$dest"
mv "$tree" "$dest"
rm -rf "$work"
