#!/usr/bin/env bash
# libvulkan.so.1 exports exactly the vk* entry points the headers it is built from call for
# (exports_expected.txt, from vk.xml and custom_commands.txt), nothing else, and carries the soname
# libvulkan.so.1. As a drop-in for Debian's Khronos libvulkan.so.1 it exports every name that one
# does; built from the headers of that loader's version, exactly those names.
set -euo pipefail
ours="$TEST_SRCDIR/$TEST_WORKSPACE/loader/libvulkan.so.1"
expected="$TEST_SRCDIR/$TEST_WORKSPACE/loader/exports_expected.txt"
version=$(cat "$TEST_SRCDIR/$TEST_WORKSPACE/tools/dist/loader_version.txt")
khronos=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
[ -f "$khronos" ] || { echo "FAIL: $khronos missing (libvulkan1 via ci/bootstrap)"; exit 1; }
# The Khronos loader's file name carries its version (libvulkan.so.1.3.239).
khronos_version=$(readlink -f "$khronos" | sed -n 's|.*/libvulkan\.so\.\([0-9.]*\)$|\1|p')
# Global and weak symbols only: LOCAL entries of .dynsym (the loader's initial-exec thread-local
# variables, layer_chain.c) are not exports.
syms() { nm -D --defined-only "$1" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort -u; }
syms "$ours" > "$TEST_TMPDIR/ours"
syms "$khronos" > "$TEST_TMPDIR/khronos"
status=0
if grep -v '^vk' "$TEST_TMPDIR/ours"; then echo "FAIL: non-vk symbols exported (above)"; status=1; fi
if ! diff "$TEST_TMPDIR/ours" "$expected"; then
    echo "FAIL: export list differs from the headers' $version (< ours, > exports_expected.txt)"
    status=1
fi
if comm -13 "$TEST_TMPDIR/ours" "$TEST_TMPDIR/khronos" | grep .; then
    echo "FAIL: Debian's loader ($khronos_version) exports the names above, ours ($version) does not"
    status=1
fi
if [ "$version" = "$khronos_version" ] && ! diff "$TEST_TMPDIR/ours" "$TEST_TMPDIR/khronos"; then
    echo "FAIL: export list differs from Debian's loader of the same version $version (< ours, > Khronos)"
    status=1
fi
soname=$(readelf -d "$ours" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libvulkan.so.1" ] || { echo "FAIL: soname is '$soname'"; status=1; }
extra=$(comm -23 "$TEST_TMPDIR/ours" "$TEST_TMPDIR/khronos" | wc -l)
[ $status -eq 0 ] && echo "PASS: $(wc -l < "$TEST_TMPDIR/ours") vk* symbols from headers $version," \
    "Debian's loader $khronos_version: $extra more; soname $soname"
exit $status
