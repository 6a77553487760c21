#!/usr/bin/env bash
# `bazel run //:check [-- TARGET_PATTERN...]`: run the tests, then print the per-policy table.
#
# 1. From the workspace ($BUILD_WORKSPACE_DIRECTORY), runs
#      bazel test --keep_going TARGETS   (default: //conformance/... //loader/... //mock_icd/... //tools/...)
#    with the same output base as the `bazel run` that started us, so nothing is rebuilt twice and
#    the user's --output_base is honoured. `bazel run` executes this script only after its own
#    command has finished and released the server lock, so the nested bazel call does not block.
#    Failing tests do not stop the script.
# 2. Runs tools/report/report.py over the test.xml files of that invocation (found through its
#    build event file in that output base's bazel-testlogs): prints the policy table (one column
#    per loader, from the "loader" property VKT_POLICY records),
#    writes report.md, report.html, report.xml (JUnit), report.txt and report.json to
#    $CHECK_REPORT_DIR (default: <bazel-bin>/check-report; <bazel-bin>/report is the //:report
#    executable) and prints a final summary line. Targets without
#    a vkt-loader-* tag (ldp-check) count in every loader column, as in `bazel run //:report`.
#    bazel's own output goes to <report dir>/bazel-test.log; the console shows its progress lines,
#    errors and the "Executed" line only (CHECK_VERBOSE=1: all of it).
#
# Environment: BAZEL (bazel binary, default `bazel`); CHECK_BAZEL_STARTUP_OPTS (extra startup
# options, word-split); CHECK_BAZEL_TEST_OPTS (extra `bazel test` options, word-split);
# CHECK_REPORT_DIR (where the report files go).
# Exit status: 0 when every test passed and no policy failed; otherwise the first non-zero of
# bazel test's and report.py's exit codes.
set -u

if [[ -z "${BUILD_WORKSPACE_DIRECTORY:-}" ]]; then
    echo "check.sh: run me with 'bazel run //:check' (BUILD_WORKSPACE_DIRECTORY is not set)" >&2
    exit 2
fi

# Locate report.py in our runfiles before changing directory (fall back to the source tree).
self_dir="$(cd "$(dirname "$0")" && pwd)"
report_py=""
for candidate in \
    "${RUNFILES_DIR:-/nonexistent}/vk_loader_harness/tools/report/report.py" \
    "$0.runfiles/vk_loader_harness/tools/report/report.py" \
    "$self_dir/check.runfiles/vk_loader_harness/tools/report/report.py" \
    "$PWD/tools/report/report.py" \
    "$BUILD_WORKSPACE_DIRECTORY/tools/report/report.py"; do
    if [[ -f "$candidate" ]]; then report_py="$candidate"; break; fi
done
if [[ -z "$report_py" ]]; then
    echo "check.sh: cannot find tools/report/report.py" >&2
    exit 2
fi

# The output base of the `bazel run` that started us: our runfiles live under <output_base>/execroot/.
startup=()
output_base=""
for p in "$PWD" "$self_dir" "$(readlink -f "$0")"; do
    if [[ "$p" == */execroot/* ]]; then output_base="${p%%/execroot/*}"; break; fi
done
if [[ -n "$output_base" ]]; then startup+=("--output_base=$output_base"); fi
# shellcheck disable=SC2206
startup+=(${CHECK_BAZEL_STARTUP_OPTS:-})
# shellcheck disable=SC2206
test_opts=(${CHECK_BAZEL_TEST_OPTS:-})
bazel="${BAZEL:-bazel}"

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(//conformance/... //loader/... //mock_icd/... //tools/...)
fi

cd "$BUILD_WORKSPACE_DIRECTORY" || exit 2
# bazel-testlogs also holds results of earlier runs (other targets, manual tests); the build event
# file tells report.py which test.xml files belong to this invocation.
events="$(mktemp "${TMPDIR:-/tmp}/check-bep.XXXXXX.json")"
trap '[[ -n "${CHECK_KEEP_BEP:-}" ]] && cp "$events" "$CHECK_KEEP_BEP"; rm -f "$events"' EXIT
bin="$("$bazel" "${startup[@]}" info bazel-bin 2>/dev/null)"
report_dir="${CHECK_REPORT_DIR:-${bin:-$BUILD_WORKSPACE_DIRECTORY/bazel-bin}/check-report}"
mkdir -p "$report_dir"
# Quiet: bazel's own output goes to a log; the console gets its progress lines ("[N / M] ..."),
# errors and the "Executed" line, then the table (CHECK_VERBOSE=1: everything).
log="$report_dir/bazel-test.log"
echo "check: $bazel ${startup[*]} test --keep_going ${test_opts[*]} ${targets[*]} (log: $log)"
"$bazel" "${startup[@]}" test --keep_going --build_event_json_file="$events" "${test_opts[@]}" -- "${targets[@]}" 2>&1 |
    tee "$log" |
    if [[ -n "${CHECK_VERBOSE:-}" ]]; then cat; else grep --line-buffered -E '^(\[[0-9,]+ / [0-9,]+\]|ERROR:|Executed )'; fi
test_rc=${PIPESTATUS[0]}
case $test_rc in
    0) ;;
    3) echo "check: some tests failed (bazel exit 3); continuing to the report" ;;
    4) echo "check: no test targets matched (bazel exit 4); continuing to the report" ;;
    *) echo "check: bazel test exited $test_rc (build or analysis errors?); continuing to the report" ;;
esac

testlogs="$("$bazel" "${startup[@]}" info bazel-testlogs 2>/dev/null)"
if [[ -z "$testlogs" || ! -d "$testlogs" ]]; then
    echo "check: no bazel-testlogs directory ($testlogs); nothing to report" >&2
    exit "${test_rc/#0/2}"
fi

echo
python3 "$report_py" \
    --policies "$BUILD_WORKSPACE_DIRECTORY/conformance/policies/policies.tsv" \
    --results "bazel-testlogs=$testlogs" \
    --bep "$events" \
    --markdown "$report_dir/report.md" \
    --html "$report_dir/report.html" \
    --junit "$report_dir/report.xml" \
    --text "$report_dir/report.txt" \
    --json "$report_dir/report.json" \
    --loader-info "ours=$bin/loader/libvulkan.so.1" \
    --loader-info "khronos=/usr/lib/x86_64-linux-gnu/libvulkan.so.1=conformance/deviations/khronos.tsv"
report_rc=$?

echo
echo "check: report written to $report_dir/{report.md,report.html,report.xml,report.txt,report.json}"
if [[ $test_rc -ne 0 ]]; then
    echo "check: FAILED (bazel test exit $test_rc, report exit $report_rc)"
    exit "$test_rc"
fi
if [[ $report_rc -ne 0 ]]; then
    echo "check: FAILED (report exit $report_rc)"
    exit "$report_rc"
fi
echo "check: OK"
