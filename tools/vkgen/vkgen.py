#!/usr/bin/env python3
"""vkgen: generates the loader's dispatch tables, trampolines, terminators and command table.

Standard-library Python 3 only. Inputs: a Vulkan registry (vk.xml), the matching vulkan_core.h (only
its VK_HEADER_VERSION is read, to refuse a mismatched pair) and the hand-edited custom command table
(loader/custom_commands.txt, format documented in that file's header). See tools/vkgen/README.md.

Usage:
  vkgen.py --registry vk.xml --header vulkan_core.h --custom custom_commands.txt --out-dir DIR
           [--stubs FILE] [--exports FILE]
  vkgen.py --update-goldens     (regenerates tools/vkgen/testdata/golden from the fixture)
"""

import argparse
import os
import sys

# This module is the command line and the driver (load, generate, write the files); the work is in
# vkgen_base.py (constants, GenError, the name hash), vkgen_registry.py (reading the inputs into the
# model) and vkgen_emit.py (writing the C). Every name of those modules is also reachable as vkgen.X
# (vkgen_mock.py, mock_layers/gen_chassis.py and the tests use it). The siblings are found wherever
# this file is run or loaded from (gen_chassis.py loads it by path).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vkgen_base import *  # noqa: E402,F401,F403
from vkgen_base import GenError  # noqa: E402
from vkgen_registry import *  # noqa: E402,F401,F403
from vkgen_registry import _api_ok, _enum_value, _text  # noqa: E402,F401  (vkgen._api_ok: vkgen_mock.py)
from vkgen_registry import Custom, Model, Registry, header_version_from_header  # noqa: E402
from vkgen_emit import *  # noqa: E402,F401,F403
from vkgen_emit import (emit_dispatch_c, emit_header, emit_results_c, emit_results_header, emit_stubs,  # noqa: E402
                        emit_terminators, emit_trampolines)


# --------------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------------
def load(registry, header, custom):
    reg = Registry(registry)
    hv = header_version_from_header(header)
    if hv != reg.header_version:
        raise GenError("VK_HEADER_VERSION mismatch: %s has %d but %s has %d; refusing to generate"
                       % (registry, reg.header_version, header, hv))
    return Model(reg, Custom(custom))


def exported_names(model):
    """The names libvulkan.so.1 exports (every one canonical: each has its own symbol), sorted."""
    return sorted(n for n, i in model.reg.names.items() if i.exported)


def generate(model):
    return {
        "vkl_gen_results.h": emit_results_header(model),
        "vkl_gen_results.c": emit_results_c(model),
        "vkl_gen_dispatch.h": emit_header(model),
        "vkl_gen_dispatch.c": emit_dispatch_c(model),
        "vkl_gen_trampolines.c": emit_trampolines(model),
        "vkl_gen_terminators.c": emit_terminators(model),
    }


def write_files(files, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, text in sorted(files.items()):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def testdata_dir(source_tree=False):
    """tools/vkgen/testdata next to this file (resolving symlinks into the source tree if asked)."""
    here = os.path.realpath(__file__) if source_tree else os.path.abspath(__file__)
    return os.path.join(os.path.dirname(here), "testdata")


def fixture_paths(testdata):
    return (os.path.join(testdata, "fixture_vk.xml"),
            os.path.join(testdata, "fixture_vulkan_core.h"),
            os.path.join(testdata, "fixture_custom_commands.txt"))


def fixture_outputs(testdata):
    """Every file the goldens hold: the four outputs plus the test-only stubs."""
    model = load(*fixture_paths(testdata))
    files = generate(model)
    files["vkl_gen_stubs.c"] = emit_stubs(model)
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--registry")
    ap.add_argument("--header")
    ap.add_argument("--custom")
    ap.add_argument("--out-dir")
    ap.add_argument("--stubs", help="also write test-only stubs of the hand-written functions here")
    ap.add_argument("--exports", help="also write the exported names here, sorted, one per line")
    ap.add_argument("--update-goldens", action="store_true",
                    help="regenerate testdata/golden from the fixture registry and exit")
    a = ap.parse_args(argv)
    try:
        if a.update_goldens:
            testdata = testdata_dir(source_tree=True)
            golden = os.path.join(testdata, "golden")
            files = fixture_outputs(testdata)
            if os.path.isdir(golden):
                for stale in sorted(set(os.listdir(golden)) - set(files)):
                    os.remove(os.path.join(golden, stale))
            write_files(files, golden)
            print("vkgen: goldens written to %s" % golden)
            return 0
        if not (a.registry and a.header and a.custom and (a.out_dir or a.stubs or a.exports)):
            ap.error("--registry, --header, --custom and --out-dir (or --stubs, --exports) are required")
        model = load(a.registry, a.header, a.custom)
        if a.out_dir:
            write_files(generate(model), a.out_dir)
        if a.stubs:
            with open(a.stubs, "w", encoding="utf-8", newline="\n") as f:
                f.write(emit_stubs(model))
        if a.exports:
            with open(a.exports, "w", encoding="utf-8", newline="\n") as f:
                f.write("".join(n + "\n" for n in exported_names(model)))
    except GenError as e:
        print("vkgen: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
