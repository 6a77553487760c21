#!/usr/bin/env bash
# Builds the release tarball (tools/dist/BUILD, :tarball): one top directory, the files flat in it,
# a SHA256SUMS over them, byte-for-byte reproducible (sorted names, fixed times and owners, gzip -n).
#
#   make_tarball.sh OUT.tar.gz TOPDIR VERSION_HEADER README CJSON_C FILE...
set -euo pipefail
out=$1 top=$2 header=$3 readme=$4 cjson_c=$5
shift 5
version=$(sed -n 's/^#define LDP_CHECK_VERSION "\(.*\)"$/\1/p' "$header")
[ -n "$version" ] || { echo "make_tarball: no LDP_CHECK_VERSION in $header" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$top"
for f in "$@"; do
  cp -L "$f" "$stage/$top/$(basename "$f")"
  case "$(basename "$f")" in
    Dockerfile) chmod 0644 "$stage/$top/$(basename "$f")" ;;  # not an executable
    *) chmod 0755 "$stage/$top/$(basename "$f")" ;;
  esac
done
sed "s/@VERSION@/$version/g" "$readme" >"$stage/$top/README.md"
echo "$version" >"$stage/$top/VERSION"
# cJSON is compiled in (MIT licence): its notice, as its source file states it, travels with it.
{
  echo "This release links cJSON, compiled from Debian's 'cjson' source package. Its notice:"
  echo
  sed -n '1,/\*\//p' "$cjson_c"
} >"$stage/$top/THIRD_PARTY_NOTICES"
chmod 0644 "$stage/$top/README.md" "$stage/$top/VERSION" "$stage/$top/THIRD_PARTY_NOTICES"
(cd "$stage/$top" && LC_ALL=C ls | grep -v '^SHA256SUMS$' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
chmod 0644 "$stage/$top/SHA256SUMS"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu -C "$stage" -cf - "$top" \
  | gzip -n -9 >"$out"
