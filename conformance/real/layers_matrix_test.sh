#!/usr/bin/env bash
# The real-layers matrix (layers_matrix.py) as a test: every layer Debian ships here, enabled as
# its users enable it, alone and combined, under vulkaninfo, vkcube, a GFXReconstruct capture with
# cross-replay and a RenderDoc capture, through our loader and Debian's, with lavapipe. Reads the
# host's layers, lavapipe and Debian's loader on purpose: this test is about them. Sharded by
# configuration (shard_count in BUILD). The table lands in the test's undeclared outputs.
set -uo pipefail
R="$TEST_SRCDIR/$TEST_WORKSPACE"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}"
mkdir -p "$out"
python3 "$R/conformance/real/layers_matrix.py" --ours="$R/loader/libvulkan.so.1" --out="$TEST_TMPDIR/matrix" \
  --deviations="$R/conformance/deviations/real-layers.tsv" --markdown="$out/real-layers.${TEST_SHARD_INDEX:-0}.md"
rc=$?
[ $rc -eq 2 ] && echo "FAIL: the matrix cannot run here (ci/bootstrap installs the layers and tools)"
exit $rc
