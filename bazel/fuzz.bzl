"""vkl_fuzz_target: one libFuzzer-style target, its engine binary and its replay test.

    vkl_fuzz_target(
        name = "icd_manifest_fuzzer",
        srcs = ["icd_manifest_fuzzer.c"],
        deps = ["//loader:parsing"],
    )

declares, in the calling package (fuzz/):
  <name>_lib          cc_library with LLVMFuzzerTestOneInput (alwayslink)
  <name>              the fuzzer binary. Its engine follows the configuration:
                        --config=fuzz  libFuzzer (linked with -fsanitize=fuzzer)
                        --config=afl   AFL++ (instrumented by afl-clang-fast, linked with
                                       AFL++'s libAFLDriver.a)
                        otherwise      fuzz/replay_main.c: replays the files/directories given
                                       as arguments (useful under gdb or valgrind)
  <name>_corpus       filegroup of corpus/<name>/** (seeds)
  <name>_regressions  filegroup of regressions/<name>/** (every input that ever failed)
  <name>_replay_test  cc_test: replay_main over the seeds and regressions. Runs in every
                      configuration (`bazel test //...` without libFuzzer; under --config=fuzz
                      the same replay with the fuzz instrumentation and sanitizers).
The dictionary dicts/<name>.dict is exported as dicts/<name>.dict (when `dict` is true).

Every source is C11 with C_COPTS (-Wall -Wextra -Werror).
"""

load("//bazel:copts.bzl", "C_COPTS")
load("//mock_icd:variants.bzl", "mock_icd_defines")
load("//mock_layers:variants.bzl", "mock_layer_defines")

# AFL++'s libFuzzer-compatible driver (main() that feeds LLVMFuzzerTestOneInput), Debian's afl++.
AFL_DRIVER = "/usr/lib/afl/libAFLDriver.a"

def vkl_fuzz_target(
        name,
        srcs,
        deps = [],
        corpus = None,
        dict = None,
        regressions = None,
        data = [],
        linkopts = [],
        copts = [],
        min_seeds = 1,
        size = "small",
        tags = []):
    """Declares a fuzz target (see the module docstring).

    Args:
      name: target name; also the corpus/regression directory and dictionary base name.
      srcs: C sources; one defines LLVMFuzzerTestOneInput (and optionally LLVMFuzzerInitialize).
      deps: cc deps.
      corpus: seed directory (default "corpus/<name>").
      dict: dictionary file (default "dicts/<name>.dict").
      regressions: regression directory (default "regressions/<name>").
      data: run-time files the target needs (both the fuzzer and the replay test get them).
      linkopts: extra link options.
      copts: extra compile options (after C_COPTS).
      min_seeds: the replay test fails when fewer seed+regression inputs are found.
      size: the replay test's size.
      tags: extra tags for the replay test.
    """
    corpus = corpus or ("corpus/" + name)
    dict = dict or ("dicts/" + name + ".dict")
    regressions = regressions or ("regressions/" + name)
    pkg = native.package_name()

    native.cc_library(
        name = name + "_lib",
        srcs = srcs,
        copts = C_COPTS + copts,
        deps = deps + ["//fuzz:fuzz_target"],
        alwayslink = 1,
        linkstatic = 1,
    )

    native.cc_binary(
        name = name,
        deps = [":" + name + "_lib"] + select({
            "//fuzz:engine_libfuzzer": [],
            "//fuzz:engine_afl": [],
            "//conditions:default": ["//fuzz:replay_main"],
        }),
        linkopts = linkopts + select({
            "//fuzz:engine_libfuzzer": ["-fsanitize=fuzzer"],
            # Bazel links through a @params file, which afl-clang-fast does not read, so its
            # "-fsanitize=fuzzer => libAFLDriver.a" rewrite never happens: name the driver.
            "//fuzz:engine_afl": [AFL_DRIVER],
            "//conditions:default": [],
        }),
        data = data,
    )

    native.filegroup(
        name = name + "_corpus",
        srcs = native.glob([corpus + "/**"]),
    )
    native.filegroup(
        name = name + "_regressions",
        srcs = native.glob([regressions + "/**"]),
    )
    native.exports_files([dict])

    native.cc_test(
        name = name + "_replay_test",
        size = size,
        deps = [":" + name + "_lib", "//fuzz:replay_main"],
        linkopts = linkopts,
        args = [
            "--expect-min=%d" % min_seeds,
            (pkg + "/" + corpus) if pkg else corpus,
            (pkg + "/" + regressions) if pkg else regressions,
        ],
        data = data + [
            ":" + name + "_corpus",
            ":" + name + "_regressions",
        ],
        tags = tags,
    )

# AddressSanitizer registers every instrumented global of a module when it is loaded and keeps
# that metadata forever (its allocator for globals never frees), so a mock dlopen()ed for every
# input would grow the fuzzer by a few KB per input: no global instrumentation in the mocks.
_MOCK_NO_ASAN_GLOBALS = ["-mllvm", "-asan-globals=0"]

def _fuzz_mock_libraries(name, prefix, srcs, defines, variants, exports):
    """One shared object <name>/<prefix>_<variant>.so per variant row, built the fuzz way
    (vkl_fuzz_mock_icds documents how), and the filegroup `name` over them."""
    libs = []
    for variant in sorted(variants.keys()):
        lib = "%s/%s_%s.so" % (name, prefix, variant)
        script = "%s/%s_%s.lds" % (name, prefix, variant)
        native.genrule(
            name = "%s_%s_lds" % (name, variant),
            outs = [script],
            cmd = "echo '{ global: %s; local: *; };' > $@" % "; ".join(exports(variant)),
        )
        native.cc_binary(
            name = lib,
            srcs = srcs,
            copts = C_COPTS + defines(variants[variant]) + select({
                "//fuzz:engine_libfuzzer": ["-fno-sanitize=fuzzer-no-link"] + _MOCK_NO_ASAN_GLOBALS,
                "//fuzz:engine_afl": _MOCK_NO_ASAN_GLOBALS,
                "//conditions:default": [],
            }),
            linkshared = 1,
            linkopts = ["-Wl,--version-script=$(location :%s)" % script],
            additional_linker_inputs = [":" + script],
            deps = [
                "@cjson//:cjson_system",
                "@vulkan_headers//:vulkan_headers",
            ],
        )
        libs.append(":" + lib)
    native.filegroup(name = name, srcs = libs)

def vkl_fuzz_mock_icds(name, variants, exports):
    """The mock ICD variants, built for the whole-loader fuzz targets.

    Same source and export lists as //mock_icd (variants.bzl), with three differences that matter
    to a fuzzer which dlopen()s and dlclose()s copies of them for every input:
      - no sanitizer COVERAGE under --config=fuzz (libFuzzer keeps pointers into the coverage
        counters of every instrumented module and reads them after dlclose unmapped it) and no
        ASan instrumentation of GLOBALS (their registration metadata is never freed, see
        _MOCK_NO_ASAN_GLOBALS); they keep ASan's heap and stack checks and UBSan, so a loader
        that hands a driver a short array still dies;
      - linked against Debian's libcjson (uninstrumented, for the same reason) instead of @cjson,
        which fuzz configurations compile from source with coverage;
      - no -Wl,--no-undefined: an instrumented shared object takes the sanitizer runtime from the
        executable that loads it.
    Outputs: <name>/libmock_icd_<variant>.so and a filegroup `name`.

    Args:
      name: filegroup name and output directory.
      variants: dict of variant name -> row (MOCK_ICD_VARIANTS).
      exports: function variant -> sorted export list (mock_icd_exports).
    """
    _fuzz_mock_libraries(name, "libmock_icd", ["//mock_icd:mock_icd_srcs",  # the one source list
                                               "//mock_icd:mock_gen_commands.c",  # generated from vk.xml
                                               # VkResult names, compiled the mock's way (no coverage)
                                               "//loader:vkl_gen_results.c", "//loader:vkl_gen_results.h"],
                         mock_icd_defines, variants, exports)

def vkl_fuzz_mock_layers(name, variants, exports):
    """The mock layer variants, built for the whole-loader fuzz targets.

    Same source and export lists as //mock_layers (variants.bzl), with the differences
    vkl_fuzz_mock_icds documents (no coverage, no ASan globals, Debian's uninstrumented libcjson,
    no -Wl,--no-undefined). Outputs: <name>/libmock_layer_<variant>.so and a filegroup `name`.

    Args:
      name: filegroup name and output directory.
      variants: dict of variant name -> row (MOCK_LAYER_VARIANTS).
      exports: function variant -> sorted export list (mock_layer_exports).
    """
    _fuzz_mock_libraries(name, "libmock_layer", ["//mock_layers:mock_layer_srcs"],  # the one source list
                         mock_layer_defines, variants, exports)
