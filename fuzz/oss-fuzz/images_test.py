"""The OSS-Fuzz and ClusterFuzzLite images (fuzz/oss-fuzz/Dockerfile, .clusterfuzzlite/Dockerfile)
and the scripts their stages run, without Docker (none in a build sandbox):
  - both Dockerfiles parsed: known instructions; every COPY source exists in the build context
    (fuzz/oss-fuzz/ for OSS-Fuzz, the repository root for ClusterFuzzLite); every COPY --from names
    an earlier stage, and what it copies is the DEST that stage's `*_source.sh DEST` writes, after
    a COPY of that script into the stage; the Debian stages are debian:*; both images put cJSON's
    and the Khronos loader's source where fuzz/build.sh looks ($SRC/cjson, $SRC/khronos-loader);
    every file the OSS-Fuzz Dockerfile copies is in the README's list of files to copy;
  - khronos_source.sh run with a stand-in apt-get (PATH): the deb-src line, the tree moved to
    DEST with VKL_SOURCE, `apt-get source vulkan-headers` only when the loader source has no
    headers, a failure when apt-get gives no loader;
  - build_khronos.sh run on a small stand-in of the vulkan-loader source tree (the layout of
    Debian's 1.3.239 source: loader/, loader/generated/, loader_cmake_config.h.in, asm_offset.c,
    unknown_ext_chain_gas_x86.S and its C alternative, vulkan-headers/): the library, its exports,
    its vkEnumerateInstanceVersion, the configuration the stand-in's #errors check, BUILD_INFO.txt,
    the fall-back to the C trampolines, and the checks that must fail.
The real source cannot be fetched in the development environment; docs/fuzzing.md says what was
run against what.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = None
INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK", "LABEL",
    "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}


def instructions(path):
    """[(lineno, INSTRUCTION, args)] of a Dockerfile (comments dropped, continuations joined)."""
    out, cur, start = [], None, 0
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.strip().startswith("#") or (cur is None and not line.strip()):
                continue
            if cur is None:
                cur, start = "", n
            if line.rstrip().endswith("\\"):
                cur += line.rstrip()[:-1] + " "
                continue
            cur += line
            word, _, rest = cur.strip().partition(" ")
            out.append((start, word, rest.strip()))
            cur = None
    return out


def stages(path):
    """[{'name', 'image', 'ins': [...]}] in order."""
    result = []
    for n, word, args in instructions(path):
        if word == "FROM":
            parts = args.split()
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            result.append({"name": name, "image": parts[0], "ins": []})
        else:
            if not result:
                raise AssertionError("%s:%d: %s before FROM" % (path, n, word))
            result[-1]["ins"].append((n, word, args))
    return result


class Dockerfiles(unittest.TestCase):
    CASES = [("fuzz/oss-fuzz/Dockerfile", "fuzz/oss-fuzz"), (".clusterfuzzlite/Dockerfile", ".")]

    def check(self, dockerfile, context):
        path = os.path.join(ROOT, dockerfile)
        st = stages(path)
        self.assertGreaterEqual(len(st), 3, dockerfile)
        names = {}
        src_dests = set()
        for i, s in enumerate(st):
            copied_scripts = {}
            for n, word, args in s["ins"]:
                where = "%s:%d" % (dockerfile, n)
                self.assertIn(word, INSTRUCTIONS, where)
                if word == "COPY":
                    parts = args.split()
                    flags = [p for p in parts if p.startswith("--")]
                    paths = [p for p in parts if not p.startswith("--")]
                    self.assertEqual(len(paths), 2, where)
                    src, dest = paths
                    frm = [f.split("=", 1)[1] for f in flags if f.startswith("--from=")]
                    if frm:
                        self.assertIn(frm[0], names, "%s: COPY --from=%s: no earlier stage" % (where, frm[0]))
                        self.assertIn(src, names[frm[0]]["writes"],
                                      "%s: stage %s writes %s, not %s" % (where, frm[0], names[frm[0]]["writes"], src))
                        src_dests.add(dest)
                    else:
                        self.assertTrue(os.path.exists(os.path.join(ROOT, context, src)),
                                        "%s: COPY source %s is not in the build context %s" % (where, src, context))
                        copied_scripts[os.path.basename(src)] = dest
                if word == "RUN":
                    m = re.search(r"bash (\S+/([a-z_]+_source\.sh)) (\S+)", args)
                    if m:
                        self.assertEqual(copied_scripts.get(m.group(2)), m.group(1),
                                         "%s: RUN %s before COPY of it" % (where, m.group(1)))
                        s.setdefault("writes", []).append(m.group(3))
            if s["name"]:
                s.setdefault("writes", [])
                names[s["name"]] = s
                self.assertTrue(s["image"].startswith("debian:"), "%s: stage %s is not Debian" % (dockerfile, s["name"]))
        self.assertTrue(st[-1]["image"].startswith("gcr.io/oss-fuzz-base/base-builder"), dockerfile)
        self.assertEqual(src_dests, {"$SRC/cjson", "$SRC/khronos-loader"}, dockerfile)
        return st

    def test_oss_fuzz(self):
        st = self.check(*self.CASES[0])
        # Every file it copies from the project directory is in the README's list of files to copy.
        with open(os.path.join(ROOT, "fuzz/oss-fuzz/README.md")) as f:
            readme = f.read()
        step = re.search(r"2\. Copy this directory's (.*?)\n3\.", readme, re.S)
        self.assertIsNotNone(step, "README step 2 lists the files")
        for s in st:
            for _, word, args in s["ins"]:
                if word == "COPY" and "--from" not in args:
                    self.assertIn("`%s`" % args.split()[0], step.group(1))

    def test_clusterfuzzlite(self):
        self.check(*self.CASES[1])

    def test_build_sh_looks_where_the_images_put_the_source(self):
        with open(os.path.join(ROOT, "fuzz/build.sh")) as f:
            text = f.read()
        self.assertIn("${SRC:-/nonexistent}/khronos-loader", text)
        self.assertIn("fuzz/oss-fuzz/build_khronos.sh", text)


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


STUB_APT = r"""#!/bin/bash
# stand-in apt-get: logs its arguments; `source PKG` unpacks what $STUB_TREES/PKG holds
echo "$*" >>"$STUB_LOG"
if [ "$1" = source ]; then
  pkg=${@: -1}
  [ -d "$STUB_TREES/$pkg" ] || exit 100
  cp -r "$STUB_TREES/$pkg"/. .
fi
exit 0
"""


class KhronosSource(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.bin = os.path.join(self.tmp, "bin")
        write(os.path.join(self.bin, "apt-get"), STUB_APT, 0o755)
        self.trees = os.path.join(self.tmp, "trees")
        self.sources = os.path.join(self.tmp, "debian.sources")
        write(self.sources, "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n")
        self.env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"], STUB_LOG=os.path.join(self.tmp, "log"),
                        STUB_TREES=self.trees, APT_SOURCES=self.sources)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def loader_tree(self, headers=True):
        t = os.path.join(self.trees, "vulkan-loader", "vulkan-loader-1.3.239.0")
        write(os.path.join(t, "loader/loader.c"), "/* stand-in */\n")
        write(os.path.join(t, "loader/generated/vk_loader_extensions.c"), "/* stand-in */\n")
        write(os.path.join(t, "debian/changelog"), "vulkan-loader (1.3.239.0-1) unstable; urgency=medium\n")
        if headers:
            write(os.path.join(t, "vulkan-headers/include/vulkan/vulkan_core.h"), "#define VK_HEADER_VERSION 239\n")

    def run_script(self, dest):
        return subprocess.run(["bash", os.path.join(ROOT, "fuzz/oss-fuzz/khronos_source.sh"), dest], env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)

    def test_loader_source_with_its_headers(self):
        self.loader_tree()
        dest = os.path.join(self.tmp, "khronos-loader")
        r = self.run_script(dest)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertTrue(os.path.isfile(os.path.join(dest, "loader/loader.c")))
        self.assertTrue(os.path.isfile(os.path.join(dest, "vulkan-headers/include/vulkan/vulkan_core.h")))
        with open(os.path.join(dest, "VKL_SOURCE")) as f:
            self.assertEqual(f.read(), "apt-get source vulkan-loader: vulkan-loader-1.3.239.0 (1.3.239.0-1)\n")
        with open(self.sources) as f:
            self.assertIn("Types: deb deb-src\n", f.read())
        with open(self.env["STUB_LOG"]) as f:
            log = f.read()
        self.assertIn("source -qq vulkan-loader", log)
        self.assertNotIn("vulkan-headers", log)

    def test_headers_from_their_own_source_package(self):
        self.loader_tree(headers=False)
        h = os.path.join(self.trees, "vulkan-headers", "vulkan-headers-1.3.239.0")
        write(os.path.join(h, "include/vulkan/vulkan_core.h"), "#define VK_HEADER_VERSION 239\n")
        write(os.path.join(h, "debian/changelog"), "vulkan-headers (1.3.239.0-1) unstable; urgency=medium\n")
        dest = os.path.join(self.tmp, "khronos-loader")
        r = self.run_script(dest)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertTrue(os.path.isfile(os.path.join(dest, "vulkan-headers/include/vulkan/vulkan_core.h")))
        with open(os.path.join(dest, "VKL_SOURCE")) as f:
            self.assertIn("apt-get source vulkan-headers: vulkan-headers-1.3.239.0 (1.3.239.0-1)", f.read())

    def test_no_source_leaves_an_empty_tree_and_the_image_builds(self):
        dest = os.path.join(self.tmp, "khronos-loader")
        r = self.run_script(dest)
        self.assertEqual(r.returncode, 0, r.stdout)  # COPY --from=khronos still finds DEST
        self.assertEqual(sorted(os.listdir(dest)), ["VKL_SOURCE"])
        with open(os.path.join(dest, "VKL_SOURCE")) as f:
            self.assertTrue(f.read().startswith("unavailable: apt-get source vulkan-loader failed"))
        self.assertIn("will compare with the image's libvulkan.so.1", r.stdout)


# A stand-in of the vulkan-loader source: every configuration build_khronos.sh must reproduce is an
# #error if missing or wrong.
FIXTURE = {
    "debian/changelog": "vulkan-loader (1.3.239.0-1) unstable; urgency=medium\n",
    "vulkan-headers/include/vulkan/vulkan_core.h":
        "#include <stdint.h>\n#define VK_HEADER_VERSION 239\n"
        "#define VK_MAKE_API_VERSION(v, ma, mi, p) ((((uint32_t)(v)) << 29) | (((uint32_t)(ma)) << 22) | "
        "(((uint32_t)(mi)) << 12) | ((uint32_t)(p)))\n",
    "loader/loader_cmake_config.h.in": "#cmakedefine HAVE_SECURE_GETENV\n#cmakedefine HAVE___SECURE_GETENV\n",
    "loader/loader.c": r"""
#include <stdlib.h>
#include <string.h>
#include "loader_cmake_config.h"
#include <vulkan/vulkan_core.h>
#if !defined(HAVE_SECURE_GETENV) || defined(HAVE___SECURE_GETENV)
#error "loader_cmake_config.h: secure_getenv links, __secure_getenv does not"
#endif
#if !defined(LOADER_DYNAMIC_LIB) || !defined(VK_ENABLE_BETA_EXTENSIONS) || !defined(_GNU_SOURCE)
#error "LOADER_DYNAMIC_LIB, VK_ENABLE_BETA_EXTENSIONS, _GNU_SOURCE"
#endif
#if !defined(NDEBUG) || !defined(__OPTIMIZE__)
#error "a release build"
#endif
_Static_assert(sizeof(SYSCONFDIR) == sizeof("/etc"), "SYSCONFDIR");
_Static_assert(sizeof(FALLBACK_CONFIG_DIRS) == sizeof("/etc/xdg"), "FALLBACK_CONFIG_DIRS");
_Static_assert(sizeof(FALLBACK_DATA_DIRS) == sizeof("/usr/local/share:/usr/share"), "FALLBACK_DATA_DIRS");
#include "included_part.c"
int unknown_trampoline(void);
int fixture_helper(void);
__attribute__((visibility("default"))) int32_t vkEnumerateInstanceVersion(uint32_t *v) {
    if (secure_getenv("FIXTURE_NEVER_SET") != NULL) return -1;
    *v = VK_MAKE_API_VERSION(0, 1, 3, VK_HEADER_VERSION);
    return unknown_trampoline() == 42 && fixture_helper() == included_part() ? 0 : -3;
}
""",
    "loader/included_part.c": "static int included_part(void) { return 7; }\n",
    "loader/dirent_on_windows.c": "#include <windows.h>\n",
    "loader/generated/vk_loader_extensions.c":
        "int fixture_helper(void) { return 7; }\n"
        "__attribute__((visibility(\"default\"))) void vkFakeExtensionCommand(void) {}\n",
    "loader/asm_offset.c": r"""
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc != 2 || strcmp(argv[1], "GAS") != 0) return 1;
    FILE *f = fopen("gen_defines.asm", "w");
    if (f == NULL) return 1;
    fprintf(f, "#define FIXTURE_ANSWER 42\n");
    return fclose(f) != 0;
}
""",
    "loader/unknown_ext_chain_gas_x86.S":
        "#include \"gen_defines.asm\"\n.text\n.globl unknown_trampoline\n.hidden unknown_trampoline\n"
        ".type unknown_trampoline, @function\nunknown_trampoline:\n    movl $FIXTURE_ANSWER, %eax\n    ret\n"
        ".section .note.GNU-stack,\"\",@progbits\n",
    "loader/unknown_ext_chain.c": "int unknown_trampoline(void) { return 42; }\n",
}


class BuildKhronos(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.tree = os.path.join(self.tmp, "khronos-loader")
        for rel, text in FIXTURE.items():
            write(os.path.join(self.tree, rel), text)
        self.exports = os.path.join(self.tmp, "exports")
        write(self.exports, "# stand-in\nvkEnumerateInstanceVersion\nvkFakeExtensionCommand\n")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def build(self, **env):
        e = dict(os.environ, KHR_EXPORTS=self.exports, KHR_WSI="xcb", KHR_CC="cc")
        e.pop("CC", None)
        e.update(env)
        return subprocess.run(["bash", os.path.join(ROOT, "fuzz/oss-fuzz/build_khronos.sh"), self.tree, self.out],
                              env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)

    def info(self):
        with open(os.path.join(self.out, "BUILD_INFO.txt")) as f:
            return f.read()

    def test_builds_with_the_assembly_trampolines(self):
        r = self.build()
        self.assertEqual(r.returncode, 0, r.stdout)
        lib = os.path.join(self.out, "libvulkan.so.1")
        dyn = subprocess.run(["readelf", "-d", lib], stdout=subprocess.PIPE, universal_newlines=True).stdout
        self.assertIn("Library soname: [libvulkan.so.1]", dyn)
        info = self.info()
        self.assertIn("unknown functions: asm\n", info)
        self.assertIn("vkEnumerateInstanceVersion: 1.3.239\n", info)
        self.assertIn("platforms: xcb\n", info)
        self.assertIn("-DVK_USE_PLATFORM_XCB_KHR", info)
        self.assertRegex(info, r"newest glibc symbol version: GLIBC_2\.\d+\n")

    def test_c_trampolines_on_request(self):
        r = self.build(KHR_UNKNOWN_FUNCTIONS="c")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("unknown functions: c\n", self.info())

    def test_falls_back_to_c_when_the_assembly_cannot_be_built(self):
        write(os.path.join(self.tree, "loader/asm_offset.c"), "int main(void) { return 1; }\n")
        r = self.build()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("using the C ones", r.stdout)
        self.assertIn("unknown functions: c\n", self.info())

    def test_export_list_mismatch_fails(self):
        write(self.exports, "vkEnumerateInstanceVersion\nvkFakeExtensionCommand\nvkMissingCommand\n")
        r = self.build()
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("-vkMissingCommand", r.stdout)

    def test_headers_of_another_version_fail(self):
        write(os.path.join(self.tree, "debian/changelog"), "vulkan-loader (1.3.240.0-1) unstable; urgency=medium\n")
        r = self.build()
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("the headers", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.out, "libvulkan.so.1")))

    def test_a_missing_source_fails(self):
        os.remove(os.path.join(self.tree, "loader/generated/vk_loader_extensions.c"))
        r = self.build()
        self.assertNotEqual(r.returncode, 0, r.stdout)


if __name__ == "__main__":
    ROOT = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.getcwd()
    unittest.main()
