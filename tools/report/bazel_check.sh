#!/usr/bin/env bash
# `bazel run //tools/report:bazel_check`: checks of the Bazel setup that only a real `bazel test`
# can show, so they run from `bazel run` (which releases the server before running us; a test
# cannot call bazel on its own workspace). For .ci/run. Exit 0 when all hold, 1 otherwise.
#   1. quiet: a test run with --test_output=all prints no linux-sandbox debug line (Debian's
#      /etc/bazel/bazelrc sets --sandbox_debug; .bazelrc turns it off) and no test-size warning;
#   2. VKT_LOADER / VKT_LOADER_NAME reach the tests (.bazelrc's --test_env pass-through, as the
#      README says), also over a target's own env attribute;
#   3. and reach the loader: a conformance test run with VKT_LOADER naming a loader that crashes
#      on load fails, with the name VKT_LOADER_NAME gave recorded in its test.xml; unset, it passes.
#   4. --config=remote-cache (endpoint $VKT_REMOTE_CACHE, through tools/bazel): remote_cache_check.sh
#      starts nginx (WebDAV) on 127.0.0.1 and builds and tests a small target from two clean output
#      bases; the second run must take everything from the cache. BAZEL_CHECK_SKIP_REMOTE_CACHE=1
#      leaves it out (it starts two more Bazel servers, ~35 s).
set -u
if [[ -z "${BUILD_WORKSPACE_DIRECTORY:-}" ]]; then
    echo "bazel_check: run me with 'bazel run //tools/report:bazel_check'" >&2
    exit 2
fi
self="$(readlink -f "$0")"
startup=()
for p in "$PWD" "$self"; do
    if [[ "$p" == */execroot/* ]]; then startup+=("--output_base=${p%%/execroot/*}"); break; fi
done
bazel="${BAZEL:-bazel}"
remote_cache_check="$PWD/tools/report/remote_cache_check.sh"   # runfiles (bazel run's cwd)
cd "$BUILD_WORKSPACE_DIRECTORY" || exit 2
unset VKT_LOADER VKT_LOADER_NAME VKT_DEVIATIONS
tmp="$(mktemp -d "${TMPDIR:-/tmp}/bazel_check.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "bazel_check: FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "bazel_check: ok: $*"; }

# 1. Quiet.
"$bazel" "${startup[@]}" test --nocache_test_results --test_output=all //tools/report:env_probe_test >"$tmp/quiet.log" 2>&1
n=$(grep -cE 'linux-sandbox(-pid1)?\.cc:' "$tmp/quiet.log")
if [[ $n -ne 0 ]]; then fail "$n linux-sandbox debug line(s) in a small bazel test's output"; else ok "no sandbox debug lines"; fi
if grep -q 'specified size is too big' "$tmp/quiet.log"; then fail "test-size warning"; else ok "no test-size warning"; fi

# 2. The variables reach the test, over the target's own VKT_LOADER_NAME=ours.
VKT_LOADER=/nonexistent/passthrough/libvulkan.so.1 VKT_LOADER_NAME=passthrough-check \
    "$bazel" "${startup[@]}" test --test_output=all //tools/report:env_probe_test >"$tmp/env.log" 2>&1
if grep -q 'env-probe: VKT_LOADER=/nonexistent/passthrough/libvulkan.so.1' "$tmp/env.log" &&
   grep -q 'env-probe: VKT_LOADER_NAME=passthrough-check' "$tmp/env.log"; then
    ok "VKT_LOADER and VKT_LOADER_NAME reach the test"
else
    fail "VKT_LOADER/VKT_LOADER_NAME did not reach the test (see below)"; grep 'env-probe' "$tmp/env.log"
fi

# 3. ... and the loader: the crashing loader fails the conformance probe; the name is recorded.
"$bazel" "${startup[@]}" build //tools/report:testdata/libcrash_loader.so >"$tmp/build.log" 2>&1 || { fail "build"; cat "$tmp/build.log"; }
bin="$("$bazel" "${startup[@]}" info bazel-bin 2>/dev/null)"
testlogs="$("$bazel" "${startup[@]}" info bazel-testlogs 2>/dev/null)"
cp "$bin/tools/report/testdata/libcrash_loader.so" "$tmp/libvulkan.so.1"
VKT_LOADER="$tmp/libvulkan.so.1" VKT_LOADER_NAME=crash-check \
    "$bazel" "${startup[@]}" test //tools/report:report_probe_test_ours >"$tmp/crash.log" 2>&1
rc=$?
if [[ $rc -eq 3 ]] && grep -q 'name="loader" value="crash-check"' "$testlogs/tools/report/report_probe_test_ours/test.xml"; then
    ok "VKT_LOADER reaches the loader (a crashing loader fails the suite, under the name given)"
else
    fail "VKT_LOADER=crashing loader: bazel exit $rc (want 3) or no loader=crash-check property"
fi
"$bazel" "${startup[@]}" test //tools/report:report_probe_test_ours >"$tmp/ours.log" 2>&1
rc=$?
if [[ $rc -eq 0 ]]; then ok "unset, the same test passes against our loader"; else fail "unset: bazel exit $rc"; fi

# 4. The remote cache, through the environment variable.
if [[ "${BAZEL_CHECK_SKIP_REMOTE_CACHE:-0}" == 1 ]]; then
    echo "bazel_check: skipped: remote cache (BAZEL_CHECK_SKIP_REMOTE_CACHE=1)"
elif BAZEL="$bazel" "$remote_cache_check" "$BUILD_WORKSPACE_DIRECTORY" >"$tmp/remote.log" 2>&1; then
    ok "--config=remote-cache: a second clean output base takes its build and test results from a local nginx cache"
else
    fail "--config=remote-cache (below)"; cat "$tmp/remote.log"
fi

echo "bazel_check: $failures failure(s)"
[[ $failures -eq 0 ]]
