#!/usr/bin/env bash
# libvulkan.so.1 carries its own cJSON (Debian's source package, compiled in with hidden
# visibility, third_party/cjson_loader.BUILD) and shares none with the process it is loaded into:
#   - no DT_NEEDED libcjson (readelf -d);
#   - no cJSON symbol in .dynsym, neither undefined (an import an application's own cJSON, loaded
#     earlier, would interpose) nor defined (an export that would interpose the application's);
#   - no cJSON symbol version namespace or version reference;
#   - and, where the library has a .symtab, cJSON_Parse really is inside it, LOCAL and HIDDEN.
set -euo pipefail
lib=${1:-"$TEST_SRCDIR/$TEST_WORKSPACE/loader/libvulkan.so.1"}
[ -f "$lib" ] || { echo "FAIL: $lib missing"; exit 1; }
status=0
needed=$(readelf -d -W "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "DT_NEEDED: $(echo $needed)"
if echo "$needed" | grep -i 'cjson'; then echo "FAIL: libvulkan.so.1 needs libcjson (above)"; status=1; fi
dyn=$(readelf --dyn-syms -W "$lib")
[ -n "$(echo "$dyn" | awk '$8 ~ /^vk/' | head -n1)" ] || { echo "FAIL: readelf --dyn-syms lists no vk* symbol: wrong file?"; status=1; }
if echo "$dyn" | grep -i 'cjson'; then echo "FAIL: cJSON symbols in .dynsym (above; UND = imported, else exported)"; status=1; fi
if readelf -V -W "$lib" | grep -i 'cjson'; then echo "FAIL: cJSON symbol versions (above)"; status=1; fi
if readelf -S -W "$lib" | grep -q '\.symtab'; then
  parse=$(readelf -s -W "$lib" | awk '$8 == "cJSON_Parse"')
  echo "symtab: ${parse:-<no cJSON_Parse>}"
  if ! echo "$parse" | grep -q 'FUNC *LOCAL *HIDDEN'; then
    echo "FAIL: cJSON_Parse is not a LOCAL HIDDEN function of libvulkan.so.1 (cJSON not compiled in?)"; status=1
  fi
else
  echo "note: no .symtab (stripped); the compiled-in cJSON is not checked by name"
fi
[ $status -eq 0 ] && echo "PASS: no libcjson in DT_NEEDED, no cJSON symbol imported or exported"
exit $status
