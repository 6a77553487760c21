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
    if "MOCK_LAYER_VARIANTS" in env:  # mock_layers/variants.bzl
        neg, std = "vkNegotiateLoaderLayerInterfaceVersion", ("vkGetInstanceProcAddr", "vkGetDeviceProcAddr")
        for name in sorted(env["MOCK_LAYER_VARIANTS"]):
            row = env["MOCK_LAYER_VARIANTS"][name]
            defines = [
                "-DMOCK_LAYER_INTERFACE=%d" % row.interface,
                "-DMOCK_LAYER_EXPORT_NEGOTIATE=%d" % (1 if row.negotiate else 0),
                "-DMOCK_LAYER_NEGOTIATE_NAME=%s" % (row.negotiate or neg),
                "-DMOCK_LAYER_EXPORT_GIPA=%d" % (1 if row.gipa else 0),
                "-DMOCK_LAYER_GIPA_NAME=%s" % (row.gipa or std)[0],
                "-DMOCK_LAYER_GDPA_NAME=%s" % (row.gipa or std)[1],
                "-DMOCK_LAYER_HAS_GPDPA=%d" % (1 if row.gpdpa else 0),
                "-DMOCK_LAYER_EXPORT_GPDPA=%d" % (1 if row.gpdpa == "export" else 0),
                "-DMOCK_LAYER_EXPORT_INTROSPECTION=%d" % (1 if row.introspection else 0),
            ]
            print("%s %s | %s" % (name, " ".join(defines), ",".join(env["mock_layer_exports"](name))))
        return
    table = env["MOCK_ICD_VARIANTS"]
    for name in sorted(table):
        row = table[name]
        vk = {None: 0, "v0": 1, "all": 2}[row.vk]
        defines = [
            "-DMOCK_ICD_MAX_INTERFACE=%d" % row.max_interface,
            "-DMOCK_ICD_EXPORT_NEGOTIATE=%d" % (1 if row.negotiate else 0),
            "-DMOCK_ICD_EXPORT_ICD_GIPA=%d" % (1 if row.icd_gipa else 0),
            "-DMOCK_ICD_HAS_GPDPA=%d" % (1 if row.gpdpa else 0),
            "-DMOCK_ICD_EXPORT_GPDPA=%d" % (1 if row.gpdpa == "export" else 0),
            "-DMOCK_ICD_EXPORT_VK=%d" % vk,
        ]
        print("%s %s | %s" % (name, " ".join(defines), ",".join(env["mock_icd_exports"](name))))


if __name__ == "__main__":
    main()
