"""vkt_conformance_test: one test source set, one test target per loader under test."""

load("//bazel:copts.bzl", "CXX_COPTS")
load("//mock_icd:variants.bzl", "MOCK_ICD_VARIANTS")

# THE SWITCH. Loaders every conformance test runs against. Add "ours" once //loader:libvulkan.so.1
# builds: that adds `<name>_ours` targets, with the library as a data dependency, found in the
# runfiles by vkt::LoaderPath() (no VKT_LOADER set).
VKT_LOADERS = ["ours", "khronos"]

KHRONOS_LOADER = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"

_LOADER_ENV = {
    "khronos": {"VKT_LOADER": KHRONOS_LOADER, "VKT_LOADER_NAME": "khronos"},
    "ours": {"VKT_LOADER_NAME": "ours"},
}

_LOADER_DATA = {
    "khronos": [],
    "ours": ["//loader:libvulkan.so.1"],
}

# Mock driver variants the suite copies into sandboxes (//mock_icd:libmock_icd_<v>.so): every row of
# the one table, mock_icd/variants.bzl, so a new row is in every conformance test's runfiles.
VKT_MOCK_VARIANTS = sorted(MOCK_ICD_VARIANTS.keys())

def vkt_conformance_test(name, srcs, deps = [], data = [], shard_count = None, size = "small",
                         tags = [], loaders = None):
    """Declares `<name>_lib` (the compiled tests) and `<name>_<loader>` for each loader.

    `<name>` itself is a test_suite of the per-loader targets.

    `size` (both loaders): "small" unless a shard takes 54 s or more. Bazel warns ("specified size
    is too big") when a passing shard's time falls outside its timeout's range: short (small) 0-53 s,
    moderate (medium) 30-269 s. Every target measures 0.1-33 s (the Khronos fifo/oom/layers targets
    20-33 s by design: probe time limits); .bazelrc raises the short timeout to 120 s (360 s under
    --config=asan/tsan) for loaded machines, which leaves these ranges alone.
    """
    native.cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs,
        copts = CXX_COPTS,
        deps = deps + [
            "//conformance/framework",
            "@googletest//:gtest",
            "@vulkan_headers//:vulkan_headers",
        ],
        alwayslink = True,
    )
    common_data = data + [
        "//conformance/framework:vkprobe",
        "//conformance/deviations",
    ] + [m for m in ["//mock_icd:libmock_icd_%s.so" % v for v in VKT_MOCK_VARIANTS] if m not in data]
    tests = []
    for loader in (loaders or VKT_LOADERS):
        native.cc_test(
            name = name + "_" + loader,
            size = size,
            shard_count = shard_count,
            tags = tags + ["vkt-loader-" + loader],
            env = _LOADER_ENV[loader],
            data = common_data + _LOADER_DATA[loader],
            deps = [
                ":" + name + "_lib",
                "//conformance/framework:main",
            ],
        )
        tests.append(":" + name + "_" + loader)
    native.test_suite(name = name, tests = tests, tags = tags)
