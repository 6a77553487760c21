#!/usr/bin/env python3
"""Prints the mock ICD (or mock layer) variant table for build scripts without Bazel.

    python3 fuzz/oss-fuzz/mock_variants.py mock_icd/variants.bzl
    python3 fuzz/oss-fuzz/mock_variants.py mock_layers/variants.bzl

One line per variant: `<variant> <compile defines separated by spaces> | <comma-separated exports>`.
variants.bzl is Starlark; its table-building part is also valid Python, so it is executed with
small stand-ins for `load`, `struct` and `native` (the Bazel macros are never called).
"""
import re
import sys
import types


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "mock_icd/variants.bzl"
    src = open(path).read()
    src = re.sub(r"^load\(.*?\)\s*$", "", src, flags=re.M | re.S)
    env = {"struct": lambda **kw: types.SimpleNamespace(**kw), "C_COPTS": [],
           "native": types.SimpleNamespace()}
    exec(compile(src, path, "exec"), env)
    # The compile defines and export lists come from the table's own functions (mock_icd_defines /
    # mock_layer_defines, mock_*_exports), the ones the Bazel build uses: one source. Only the mock
    # layer rows built from mock_layer.c (MOCK_LAYER_VARIANTS; the chassis rows are built from
    # chassis_layer.c with its generated dispatch, which needs Bazel).
    if "MOCK_LAYER_VARIANTS" in env:  # mock_layers/variants.bzl
        table, defines, exports = env["MOCK_LAYER_VARIANTS"], env["mock_layer_defines"], env["mock_layer_exports"]
    else:
        table, defines, exports = env["MOCK_ICD_VARIANTS"], env["mock_icd_defines"], env["mock_icd_exports"]
    for name in sorted(table):
        print("%s %s | %s" % (name, " ".join(defines(table[name])), ",".join(exports(name))))


if __name__ == "__main__":
    main()
