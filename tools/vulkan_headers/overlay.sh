#!/bin/sh
# overlay.sh: makes a Vulkan-Headers checkout usable as @vulkan_headers and @vulkan_registry through
# Bazel's --override_repository, and prints the flags (see --help).
set -eu

usage() {
    cat <<'USAGE'
usage: tools/vulkan_headers/overlay.sh [--out=DIR] [--flags-only] CHECKOUT

Builds the loader against the headers and vk.xml of CHECKOUT (a Vulkan-Headers checkout:
CHECKOUT/include/vulkan/vulkan_core.h, CHECKOUT/registry/vk.xml) instead of Debian's.

--override_repository replaces a repository by a plain local_repository, which needs a WORKSPACE
and a BUILD file; a Vulkan-Headers checkout has neither, so this script makes two overlay
directories under DIR, each an empty WORKSPACE, our BUILD file and symbolic links into CHECKOUT
(nothing is copied from, or written to, CHECKOUT):

  DIR/vulkan_headers/   WORKSPACE  BUILD.bazel  vulkan -> CHECKOUT/include/vulkan
                        vk_video -> CHECKOUT/include/vk_video
  DIR/vulkan_registry/  WORKSPACE  BUILD.bazel  vk.xml -> CHECKOUT/registry/vk.xml
                        video.xml -> CHECKOUT/registry/video.xml (when present)

and prints the flags to pass to every bazel build/test/run (one line):

  --override_repository=vulkan_headers=DIR/vulkan_headers --override_repository=vulkan_registry=DIR/vulkan_registry

Options:
  --out=DIR      where the overlay goes (made if missing; its two subdirectories are replaced).
                 Default: ${XDG_CACHE_HOME:-$HOME/.cache}/vkl-vulkan-headers/<VK_HEADER_VERSION>-<hash of CHECKOUT's path>
  --flags-only   print only the flags (for $(...)); otherwise a summary goes to stderr
  -h, --help     this text

Example:
  flags=$(tools/vulkan_headers/overlay.sh --flags-only /path/to/Vulkan-Headers)
  bazel build $flags //loader:libvulkan.so.1
  bazel test $flags //loader/... //tools/vkgen/...

Use one --output_base per header set (bazel --output_base=...): switching the override in one
output base refetches the repositories and rebuilds everything that includes a Vulkan header.
Re-run the script after pulling new BUILD files (the overlay holds copies of them).
USAGE
}

out=
flags_only=0
checkout=
for arg in "$@"; do
    case $arg in
    -h | --help) usage; exit 0 ;;
    --out=*) out=${arg#--out=} ;;
    --flags-only) flags_only=1 ;;
    -*) echo "overlay.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *)
        [ -z "$checkout" ] || { echo "overlay.sh: one CHECKOUT only (see --help)" >&2; exit 2; }
        checkout=$arg
        ;;
    esac
done
[ -n "$checkout" ] || { usage >&2; exit 2; }

die() { echo "overlay.sh: $*" >&2; exit 1; }

checkout=$(cd "$checkout" 2>/dev/null && pwd -P) || die "no such directory: $checkout"
core=$checkout/include/vulkan/vulkan_core.h
xml=$checkout/registry/vk.xml
[ -f "$core" ] || die "$checkout is not a Vulkan-Headers checkout: no include/vulkan/vulkan_core.h"
[ -f "$xml" ] || die "$checkout is not a Vulkan-Headers checkout: no registry/vk.xml"
version=$(sed -n 's/^#define VK_HEADER_VERSION \([0-9][0-9]*\)$/\1/p' "$core")
[ -n "$version" ] || die "$core: no '#define VK_HEADER_VERSION <n>'"

# The BUILD files come from the repository this script is in.
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
headers_build=$repo/third_party/vulkan_headers_overlay.BUILD
registry_build=$repo/third_party/vulkan_registry.BUILD
if [ ! -f "$headers_build" ] || [ ! -f "$registry_build" ]; then
    die "missing $headers_build or $registry_build"
fi

if [ -z "$out" ]; then
    hash=$(printf '%s' "$checkout" | cksum | cut -d' ' -f1)
    out=${XDG_CACHE_HOME:-$HOME/.cache}/vkl-vulkan-headers/$version-$hash
fi
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
case $out/ in
"$repo"/*) die "--out=$out is inside the repository; Bazel would take it for a package" ;;
"$checkout"/*) die "--out=$out is inside the checkout; the overlay never writes there" ;;
esac

rm -rf "$out/vulkan_headers" "$out/vulkan_registry"
mkdir "$out/vulkan_headers" "$out/vulkan_registry"
: >"$out/vulkan_headers/WORKSPACE"
: >"$out/vulkan_registry/WORKSPACE"
cp "$headers_build" "$out/vulkan_headers/BUILD.bazel"
cp "$registry_build" "$out/vulkan_registry/BUILD.bazel"
ln -s "$checkout/include/vulkan" "$out/vulkan_headers/vulkan"
if [ -d "$checkout/include/vk_video" ]; then
    ln -s "$checkout/include/vk_video" "$out/vulkan_headers/vk_video"
fi
ln -s "$xml" "$out/vulkan_registry/vk.xml"
if [ -f "$checkout/registry/video.xml" ]; then
    ln -s "$checkout/registry/video.xml" "$out/vulkan_registry/video.xml"
fi

flags="--override_repository=vulkan_headers=$out/vulkan_headers --override_repository=vulkan_registry=$out/vulkan_registry"
if [ "$flags_only" = 0 ]; then
    echo "overlay.sh: VK_HEADER_VERSION $version from $checkout; overlay in $out" >&2
    echo "overlay.sh: pass these flags to bazel build/test/run:" >&2
fi
echo "$flags"
