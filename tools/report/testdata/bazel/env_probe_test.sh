#!/usr/bin/env bash
# Prints how the loader-selection variables reach a test (read by tools/report/bazel_check.sh):
# one line per variable, "unset" when absent. The target sets VKT_LOADER_NAME=ours in its env
# attribute, like the *_ours conformance targets, so --test_env's precedence shows too.
for v in VKT_LOADER VKT_LOADER_NAME VKT_DEVIATIONS; do
    if [[ -n "${!v+x}" ]]; then echo "env-probe: $v=${!v}"; else echo "env-probe: $v unset"; fi
done
