#!/usr/bin/env bash
# libvulkan.so.1 never allocates thread-local storage at run time (loader/internal/tls.h): with
# only initial-exec TLS, glibc places the library's block in the static TLS surplus at dlopen and
# no access goes through __tls_get_addr, which may allocate (and, failing, end the process with
# status 127). Checked on the built library:
#   - no undefined __tls_get_addr in .dynsym (a global- or local-dynamic access imports it);
#   - no R_X86_64_DTPMOD64 / R_X86_64_DTPOFF64 relocation (the dynamic models' GOT entries);
#   - DT_FLAGS has STATIC_TLS (what an initial-exec access in a shared object sets);
#   - the PT_TLS segment's memory size stays within 512 bytes of the surplus (glibc reserves at
#     least 1,664 bytes for dlopen()ed libraries' static TLS; Mesa and others need it too).
set -euo pipefail
lib=${1:-"$TEST_SRCDIR/$TEST_WORKSPACE/loader/libvulkan.so.1"}
[ -f "$lib" ] || { echo "FAIL: $lib missing"; exit 1; }
status=0
dyn=$(readelf --dyn-syms -W "$lib")
[ -n "$(echo "$dyn" | awk '$8 ~ /^vk/' | head -n1)" ] || { echo "FAIL: readelf --dyn-syms lists no vk* symbol: wrong file?"; exit 1; }
if echo "$dyn" | grep -w '__tls_get_addr'; then
  echo "FAIL: __tls_get_addr is imported (above): a thread-local variable is not VKL_TLS (loader/internal/tls.h)"
  status=1
fi
if readelf -rW "$lib" | grep -E 'R_X86_64_DTP(MOD|OFF)64'; then
  echo "FAIL: dynamic-TLS relocations (above)"
  status=1
fi
flags=$(readelf -dW "$lib" | sed -n 's/.*(FLAGS) *//p')
echo "DT_FLAGS: $flags"
tls=$(readelf -lW "$lib" | awk '$1 == "TLS" {print $6}')
if [ -n "$tls" ]; then
  echo "PT_TLS memory size: $tls"
  echo "$flags" | grep -qw STATIC_TLS || { echo "FAIL: the library has TLS but no STATIC_TLS flag"; status=1; }
  if [ $((tls)) -gt 512 ]; then echo "FAIL: $((tls)) bytes of TLS (budget 512)"; status=1; fi
fi
[ "$status" = 0 ] && echo "PASS: initial-exec TLS only${tls:+, $((tls)) bytes}"
exit "$status"
