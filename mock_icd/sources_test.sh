#!/bin/bash
# The mock ICD's source list has two spellings: //mock_icd:mock_icd_srcs (what every Bazel build of
# the mock compiles: mock_icd/BUILD, //fuzz:fuzz_mock_icds, //tools/dist) and mock_icd/SOURCES
# (what fuzz/build.sh, the OSS-Fuzz build without Bazel, compiles). This checks they name the same
# files, and that every C source and header in mock_icd/ is on the list.
# Arguments: SOURCES -- <files of :mock_icd_srcs> -- <every *.c / *.h of the package>
set -u
sources=$1
shift 2
group=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do group+=("$1"); shift; done
shift
package=("$@")
fail=0
listed=$(grep -v '^#' "$sources" | grep -v '^$' | sort)
built=$(printf '%s\n' "${group[@]}" | sort)
if [ "$listed" != "$built" ]; then
  echo "FAIL: mock_icd/SOURCES and //mock_icd:mock_icd_srcs differ (< SOURCES, > filegroup):"
  diff <(echo "$listed") <(echo "$built")
  fail=1
fi
for f in "${package[@]}"; do
  if ! grep -qxF "$f" <<<"$listed"; then
    echo "FAIL: $f is in mock_icd/ but not in mock_icd/SOURCES (and //mock_icd:mock_icd_srcs)"
    fail=1
  fi
done
for f in $listed; do
  [ -f "$f" ] || { echo "FAIL: mock_icd/SOURCES names $f, which does not exist"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "OK: $(wc -l <<<"$listed") files, one list"
exit "$fail"
