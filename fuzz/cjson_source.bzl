"""@cjson_source: cJSON compiled from Debian's `cjson` source package, for fuzz builds only.

The source lives OUTSIDE the repository (vendoring third-party code is forbidden):
$VKL_CJSON_SRC, else ${XDG_CACHE_HOME:-$HOME/.cache}/vk-loader-harness/cjson-src, filled by
fuzz/fetch_cjson_src.sh (`apt-get source cjson`). `--config=fuzz` / `--config=afl` set
`--define=vkl_cjson=source`, which makes `@cjson//:cjson` (third_party/cjson.BUILD) resolve to
`@cjson_source//:cjson` so cJSON.c is compiled with the sanitizer and coverage flags; every other
configuration keeps linking Debian's libcjson.so and never needs this repository's files.

When the source is missing the repository still loads (so `bazel query //...` works), but building
`@cjson_source//:cjson` fails with a message saying what to run. The rule is `local`, so it is
re-evaluated after `bazel shutdown` or `bazel sync --only=cjson_source` once the source is fetched.
"""

def _cjson_source_impl(rctx):
    env = rctx.os.environ
    src = env.get("VKL_CJSON_SRC", "")
    if not src:
        cache = env.get("XDG_CACHE_HOME", "") or (env.get("HOME", "") + "/.cache")
        src = cache + "/vk-loader-harness/cjson-src"
    c = rctx.path(src + "/cJSON.c")
    h = rctx.path(src + "/cJSON.h")
    if c.exists and h.exists:
        rctx.symlink(c, "cJSON.c")
        rctx.symlink(h, "cJSON.h")
        rctx.symlink(rctx.attr.build_file, "BUILD.bazel")
        return
    msg = ("cJSON source not found in %s: run fuzz/fetch_cjson_src.sh, then " % src +
           "`bazel sync --only=cjson_source` (or `bazel shutdown`) and build again")
    rctx.file("BUILD.bazel", """# Generated: the cJSON source is missing.
package(default_visibility = ["//visibility:public"])

genrule(
    name = "missing_source",
    outs = ["missing_source.c"],
    cmd = "echo '{msg}' >&2; exit 1",
)

cc_library(
    name = "cjson",
    srcs = [":missing_source.c"],
)
""".format(msg = msg))

cjson_source_repository = repository_rule(
    implementation = _cjson_source_impl,
    attrs = {"build_file": attr.label(allow_single_file = True, mandatory = True)},
    environ = ["VKL_CJSON_SRC", "XDG_CACHE_HOME", "HOME"],
    local = True,
)
