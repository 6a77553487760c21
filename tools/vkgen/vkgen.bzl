"""vkl_gen: runs tools/vkgen in the calling package (see tools/vkgen/README.md)."""

VKL_GEN_OUTS = [
    "vkl_gen_dispatch.h",
    "vkl_gen_dispatch.c",
    "vkl_gen_trampolines.c",
    "vkl_gen_terminators.c",
    "vkl_gen_results.h",
    "vkl_gen_results.c",
]

def vkl_gen(
        name,
        custom,
        registry = "@vulkan_registry//:vk.xml",
        header = "@vulkan_headers//:vulkan/vulkan_core.h",
        **kwargs):
    """Generates the dispatch tables, trampolines, terminators and command table.

    Args:
      name: the genrule's name; its outputs are VKL_GEN_OUTS in the calling package.
      custom: the hand-edited custom command table (e.g. "custom_commands.txt").
      registry: vk.xml.
      header: vulkan_core.h; its VK_HEADER_VERSION must equal vk.xml's or generation fails.
      **kwargs: passed to the genrule (visibility, tags, ...).
    """
    native.genrule(
        name = name,
        srcs = [custom, registry, header],
        outs = VKL_GEN_OUTS,
        tools = ["//tools/vkgen:vkgen.py", "//tools/vkgen:vkgen_modules"],
        cmd = ("python3 $(location //tools/vkgen:vkgen.py)" +
               " --registry $(location %s)" % registry +
               " --header $(location %s)" % header +
               " --custom $(location %s)" % custom +
               " --out-dir $(@D)"),
        message = "vkgen: generating %s" % name,
        **kwargs
    )

def vkl_gen_stubs(
        name,
        out,
        custom,
        registry = "@vulkan_registry//:vk.xml",
        header = "@vulkan_headers//:vulkan/vulkan_core.h",
        **kwargs):
    """Test-only: a C file with stub bodies for every hand-written function named in `custom`."""
    native.genrule(
        name = name,
        srcs = [custom, registry, header],
        outs = [out],
        tools = ["//tools/vkgen:vkgen.py", "//tools/vkgen:vkgen_modules"],
        cmd = ("python3 $(location //tools/vkgen:vkgen.py)" +
               " --registry $(location %s)" % registry +
               " --header $(location %s)" % header +
               " --custom $(location %s)" % custom +
               " --stubs $@"),
        testonly = 1,
        **kwargs
    )

def vkl_gen_mock_commands(
        name,
        out = "mock_gen_commands.c",
        registry = "@vulkan_registry//:vk.xml",
        **kwargs):
    """The mock driver's no-op core commands and their table (tools/vkgen/vkgen_mock.py)."""
    native.genrule(
        name = name,
        srcs = [registry],
        outs = [out],
        tools = ["//tools/vkgen:vkgen_mock.py", "//tools/vkgen:vkgen.py", "//tools/vkgen:vkgen_modules"],
        cmd = ("python3 $(location //tools/vkgen:vkgen_mock.py)" +
               " --registry $(location %s)" % registry +
               " --out $@"),
        message = "vkgen_mock: generating %s" % out,
        **kwargs
    )

def vkl_gen_exports(
        name,
        out,
        custom,
        registry = "@vulkan_registry//:vk.xml",
        header = "@vulkan_headers//:vulkan/vulkan_core.h",
        **kwargs):
    """The names libvulkan.so.1 exports with these headers, sorted, one per line (for tests)."""
    native.genrule(
        name = name,
        srcs = [custom, registry, header],
        outs = [out],
        tools = ["//tools/vkgen:vkgen.py", "//tools/vkgen:vkgen_modules"],
        cmd = ("python3 $(location //tools/vkgen:vkgen.py)" +
               " --registry $(location %s)" % registry +
               " --header $(location %s)" % header +
               " --custom $(location %s)" % custom +
               " --exports $@"),
        **kwargs
    )
