#!/usr/bin/env bash
# `bazel run //:report -- [--loader=PATH]... [--out=DIR] [TARGET_PATTERN...]`
#
# Runs the loader-agnostic conformance suite (every vkt_conformance_test, i.e. the targets tagged
# vkt-loader-ours, default pattern //conformance/...) once per loader under test, then writes the
# side-by-side per-policy matrix. Each loader run is a separate `bazel test` with
#   --test_env=VKT_LOADER=PATH --test_env=VKT_LOADER_NAME=NAME
# on the same targets (the framework loads the loader only inside its vkprobe children, each with a
# time limit, so a loader that crashes or hangs yields failed cells, not a lost run).
#   no --loader      ours (//loader:libvulkan.so.1 from the runfiles) vs Debian's Khronos loader
#   --loader=P       that loader alone; twice: both side by side. "ours" and "khronos" are accepted
#                    as names; Debian's path is named khronos (its deviations file applies).
# Output (default <bazel-bin>/report-loaders, or --out / $REPORT_DIR): report.md, report.html
# (self-contained), report.xml (JUnit), report.txt, durations-<name>.tsv; the time each area took
# is part of the Markdown/HTML/text report. Environment as check.sh: BAZEL, CHECK_BAZEL_STARTUP_OPTS,
# CHECK_BAZEL_TEST_OPTS. Exit status: report.py's (1 when a policy FAILs for some loader).
set -u
if [[ -z "${BUILD_WORKSPACE_DIRECTORY:-}" ]]; then
    echo "run_report.sh: run me with 'bazel run //:report' (BUILD_WORKSPACE_DIRECTORY is not set)" >&2
    exit 2
fi
KHRONOS=/usr/lib/x86_64-linux-gnu/libvulkan.so.1
self_dir="$(cd "$(dirname "$0")" && pwd)"
find_tool() {
    local c
    for c in "${RUNFILES_DIR:-/nonexistent}/vk_loader_harness/tools/report/$1" \
             "$0.runfiles/vk_loader_harness/tools/report/$1" \
             "$BUILD_WORKSPACE_DIRECTORY/tools/report/$1"; do
        if [[ -f "$c" ]]; then echo "$c"; return 0; fi
    done
    return 1
}
report_py="$(find_tool report.py)" || { echo "run_report.sh: no report.py" >&2; exit 2; }
durations_py="$(find_tool durations.py)" || { echo "run_report.sh: no durations.py" >&2; exit 2; }

startup=()
output_base=""
for p in "$PWD" "$self_dir" "$(readlink -f "$0")"; do
    if [[ "$p" == */execroot/* ]]; then output_base="${p%%/execroot/*}"; break; fi
done
[[ -n "$output_base" ]] && startup+=("--output_base=$output_base")
# shellcheck disable=SC2206
startup+=(${CHECK_BAZEL_STARTUP_OPTS:-})
# shellcheck disable=SC2206
test_opts=(${CHECK_BAZEL_TEST_OPTS:-})
bazel="${BAZEL:-bazel}"

loaders=()
targets=()
out_dir="${REPORT_DIR:-}"
for a in "$@"; do
    case "$a" in
        --loader=*) loaders+=("${a#--loader=}") ;;
        --out=*) out_dir="${a#--out=}" ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) targets+=("$a") ;;
    esac
done
[[ ${#loaders[@]} -eq 0 ]] && loaders=(ours "$KHRONOS")
if [[ ${#loaders[@]} -gt 2 ]]; then echo "run_report.sh: at most two --loader" >&2; exit 2; fi
[[ ${#targets[@]} -eq 0 ]] && targets=(//conformance/...)

cd "$BUILD_WORKSPACE_DIRECTORY" || exit 2
bin="$("$bazel" "${startup[@]}" info bazel-bin 2>/dev/null)"
out_dir="${out_dir:-${bin:-/tmp}/report-loaders}"
mkdir -p "$out_dir"
work="$(mktemp -d "${TMPDIR:-/tmp}/report-loaders.XXXXXX")"
trap 'rm -rf "$work"' EXIT

results=()
durations=()
broken=()
i=0
for L in "${loaders[@]}"; do
    i=$((i + 1))
    env_opts=()
    if [[ "$L" == ours ]]; then
        name=ours
    elif [[ "$L" == khronos || "$(readlink -f "$L" 2>/dev/null)" == "$(readlink -f "$KHRONOS")" ]]; then
        name=khronos
        env_opts=(--test_env=VKT_LOADER="$KHRONOS" --test_env=VKT_LOADER_NAME=khronos)
    else
        path="$(readlink -f "$L" 2>/dev/null || echo "$L")"
        if [[ ! -f "$path" ]]; then echo "run_report.sh: no loader at $L" >&2; exit 2; fi
        name="loader$i-$(basename "$path" | tr -c 'A-Za-z0-9_.\n-' '_')"
        env_opts=(--test_env=VKT_LOADER="$path" --test_env=VKT_LOADER_NAME="$name")
    fi
    bep="$work/bep-$name.json"
    echo "report: [$name] $bazel test --test_tag_filters=vkt-loader-ours ${env_opts[*]} ${targets[*]}"
    start=$(date +%s)
    "$bazel" "${startup[@]}" test --keep_going --test_tag_filters=vkt-loader-ours \
        --build_event_json_file="$bep" "${env_opts[@]}" "${test_opts[@]}" -- "${targets[@]}"
    rc=$?
    echo "report: [$name] bazel test exit $rc after $(( $(date +%s) - start ))s"
    # 0: all passed, 3: some tests failed (their cells show it); anything else: no results.
    if [[ $rc -ne 0 && $rc -ne 3 ]]; then broken+=("$name (bazel exit $rc)"); fi
    mkdir -p "$work/results-$name"
    python3 "$durations_py" "$bep" --copy-xml "$work/results-$name" > "$out_dir/durations-$name.tsv"
    results+=(--results "$name=$work/results-$name")
    durations+=(--durations "$name=$out_dir/durations-$name.tsv")
done

python3 "$report_py" \
    --policies "$BUILD_WORKSPACE_DIRECTORY/conformance/policies/policies.tsv" \
    "${results[@]}" "${durations[@]}" \
    --markdown "$out_dir/report.md" --html "$out_dir/report.html" \
    --junit "$out_dir/report.xml" --text "$out_dir/report.txt"
report_rc=$?
echo "report: written to $out_dir/{report.md,report.html,report.xml,report.txt}"
if [[ ${#broken[@]} -gt 0 ]]; then
    echo "report: FAILED: the suite did not build or run for: ${broken[*]}"
    exit 1
fi
exit $report_rc
