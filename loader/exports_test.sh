#!/usr/bin/env bash
# libvulkan.so.1 exports exactly the vk* entry points Debian's Khronos libvulkan.so.1 exports on
# this machine, nothing else, and carries the soname libvulkan.so.1.
set -euo pipefail
ours="$TEST_SRCDIR/$TEST_WORKSPACE/loader/libvulkan.so.1"
khronos=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
[ -f "$khronos" ] || { echo "FAIL: $khronos missing (libvulkan1 via ci/bootstrap)"; exit 1; }
# Global and weak symbols only: LOCAL entries of .dynsym (the loader's initial-exec thread-local
# variables, layer_chain.c) are not exports.
syms() { nm -D --defined-only "$1" | awk '$2 ~ /^[A-Z]$/ {print $3}' | sort -u; }
syms "$ours" > "$TEST_TMPDIR/ours"
syms "$khronos" > "$TEST_TMPDIR/khronos"
status=0
if grep -v '^vk' "$TEST_TMPDIR/ours"; then echo "FAIL: non-vk symbols exported (above)"; status=1; fi
if ! diff "$TEST_TMPDIR/ours" "$TEST_TMPDIR/khronos"; then echo "FAIL: export list differs from Debian's loader (< ours, > Khronos)"; status=1; fi
soname=$(readelf -d "$ours" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libvulkan.so.1" ] || { echo "FAIL: soname is '$soname'"; status=1; }
[ $status -eq 0 ] && echo "PASS: $(wc -l < "$TEST_TMPDIR/ours") vk* symbols, identical to Debian's loader; soname $soname"
exit $status
