#!/usr/bin/env bash
# Prints the reference loader's version, as the Khronos loader's build derives its own: the
# Vulkan API major.minor of VK_HEADER_VERSION_COMPLETE and the patch VK_HEADER_VERSION, both from
# the registry the loader is generated from (vk.xml), e.g. 1.3.239 for Debian bookworm's headers.
#
#   loader_version.sh vk.xml > OUT
set -euo pipefail
xml=$1
# Newer registries also define Vulkan SC's VK_HEADER_VERSION and VK_HEADER_VERSION_COMPLETE; Vulkan's
# come first (the registry's order since they were added), hence head -n1.
patch=$(sed -n 's|^#define <name>VK_HEADER_VERSION</name> *\([0-9][0-9]*\).*|\1|p' "$xml" | head -n1)
# #define <name>VK_HEADER_VERSION_COMPLETE</name> <type>VK_MAKE_API_VERSION</type>(0, 1, 3, VK_HEADER_VERSION)
majmin=$(sed -n 's|^#define <name>VK_HEADER_VERSION_COMPLETE</name>.*(\s*[0-9]*\s*,\s*\([0-9][0-9]*\)\s*,\s*\([0-9][0-9]*\)\s*,.*|\1.\2|p' "$xml" | head -n1)
[ -n "$patch" ] || { echo "loader_version: no VK_HEADER_VERSION in $xml" >&2; exit 1; }
[ -n "$majmin" ] || { echo "loader_version: no VK_HEADER_VERSION_COMPLETE in $xml" >&2; exit 1; }
echo "$majmin.$patch"
