#!/usr/bin/env bash
# `bazel run //:report -- [--loader=NAME=PATH]... [--deviations=NAME=FILE]... [--baseline=FILE]
#                        [--out=DIR] [TARGET_PATTERN...]`: see tools/report/run_report.py.
set -u
for c in "${RUNFILES_DIR:-/nonexistent}/vk_loader_harness/tools/report/run_report.py" \
         "$0.runfiles/vk_loader_harness/tools/report/run_report.py" \
         "${BUILD_WORKSPACE_DIRECTORY:-/nonexistent}/tools/report/run_report.py"; do
    if [[ -f "$c" ]]; then exec python3 "$c" "$@"; fi
done
echo "run_report.sh: cannot find tools/report/run_report.py" >&2
exit 2
