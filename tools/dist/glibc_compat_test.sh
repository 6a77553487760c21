#!/usr/bin/env bash
# Runs the compat probe (glibc_compat_test.c) and checks its own symbol versions (<= GLIBC_2.31).
set -euo pipefail
probe=$1
out=$("$probe" one two)
[ "$out" = "ok" ] || { echo "probe said: $out"; exit 1; }
if readelf -d "$probe" | grep -q 'NEEDED.*san'; then
  echo "sanitizer build: symbol versions not checked"; exit 0
fi
bad=$(objdump -T "$probe" | grep -oE 'GLIBC_2\.(3[2-9]|[4-9][0-9])' | sort -u || true)
[ -z "$bad" ] || { echo "probe needs $bad:"; objdump -T "$probe" | grep -E 'GLIBC_2\.(3[2-9]|[4-9][0-9])'; exit 1; }
for s in dlopen dlsym dlerror dlclose dladdr dlinfo pthread_once __libc_start_main; do
  objdump -T "$probe" | grep -qE "\(GLIBC_2\.(2\.5|3\.3)\) +$s\$" || { echo "$s is not bound to an old version"; objdump -T "$probe"; exit 1; }
done
echo "PASS"
