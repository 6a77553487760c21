"""The release tarball in a clean room (tools/dist/BUILD, :dist_test).

Unpacks ldp-check-linux-x86_64.tar.gz into an empty directory and checks that
  - it holds exactly the files the README lists, and SHA256SUMS verifies them;
  - no ELF file in it needs a glibc symbol version newer than 2.31 (objdump -T, and the version
    references of objdump -p), nor any shared library but libc / libdl / libpthread / ld-linux
    (readelf -d), nor has an RPATH/RUNPATH, nor exports cJSON;
  - ldp-check runs from there on lavapipe with an environment of PATH only, finds the loader and
    the mock beside itself, and gives lavapipe's known verdicts (as //conformance/driver's
    lavapipe test does with the Bazel-built checker);
  - llp-check runs from there on the Khronos validation layer with an environment of PATH only,
    finds the loader, the mock and the recording layer beside itself, and gives the verdicts of
    the recorded report docs/llp-check-reports/VK_LAYER_KHRONOS_validation.json (as
    //conformance/layer_check:llp_check_test does with the Bazel-built checker).
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import unittest

LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
VALIDATION = "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"
TOP = "ldp-check-linux-x86_64"
EXPECTED_FILES = {
    "ldp-check", "libvulkan.so.1", "libmock_icd_v7.so", "llp-check", "librecording_layer.so", "README.md",
    "SHA256SUMS", "VERSION", "THIRD_PARTY_NOTICES", "Dockerfile",
}
ELF_FILES = ["ldp-check", "libvulkan.so.1", "libmock_icd_v7.so", "llp-check", "librecording_layer.so"]
ALLOWED_NEEDED = {"libc.so.6", "libdl.so.2", "libpthread.so.0", "ld-linux-x86-64.so.2"}
MAX_GLIBC = (2, 31)
CLEAN_ENV = {"PATH": "/usr/bin:/bin"}

TARBALL = None
VALIDATION_REPORT = None


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)


def version_tuple(v):
    return tuple(int(x) for x in v.split("."))


class DistTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "clean_room")
        os.makedirs(cls.root)
        assert os.listdir(cls.root) == []
        with tarfile.open(TARBALL, "r:gz") as t:
            for m in t.getmembers():
                # Nothing may land outside the top directory.
                assert m.name == TOP or m.name.startswith(TOP + "/"), m.name
                assert not m.issym() and not m.islnk(), m.name
            t.extractall(cls.root)
        cls.dir = os.path.join(cls.root, TOP)
        cls.needed = {}
        for f in ELF_FILES:
            out = run(["readelf", "-d", os.path.join(cls.dir, f)]).stdout
            cls.needed[f] = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
        # A sanitizer configuration (--config=asan/ubsan/tsan) builds these with its runtime: the
        # release properties apply to the plain build only.
        cls.sanitized = sorted({n for ns in cls.needed.values() for n in ns if re.match(r"lib(a|ub|t|l)san", n)})

    def setUp(self):
        if self.sanitized:
            self.skipTest("sanitizer build (%s in DT_NEEDED): the release tarball is checked in the plain "
                          "configuration only" % ", ".join(self.sanitized))

    def test_contents_and_checksums(self):
        self.assertEqual(set(os.listdir(self.root)), {TOP})
        self.assertEqual(set(os.listdir(self.dir)), EXPECTED_FILES)
        listed = {}
        with open(os.path.join(self.dir, "SHA256SUMS")) as f:
            for line in f:
                digest, name = line.rstrip("\n").split("  ", 1)
                listed[name] = digest
        self.assertEqual(set(listed), EXPECTED_FILES - {"SHA256SUMS"})
        for name, digest in listed.items():
            with open(os.path.join(self.dir, name), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), digest, name)
        r = run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=self.dir, env=CLEAN_ENV)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for f in ELF_FILES:
            self.assertTrue(os.access(os.path.join(self.dir, f), os.X_OK), f)
        with open(os.path.join(self.dir, "VERSION")) as f:
            version = f.read().strip()
        with open(os.path.join(self.dir, "README.md")) as f:
            readme = f.read()
        self.assertIn("ldp-check " + version, readme)
        self.assertNotIn("@VERSION@", readme)
        with open(os.path.join(self.dir, "THIRD_PARTY_NOTICES")) as f:
            self.assertIn("Permission is hereby granted", f.read())

    def test_glibc_symbol_versions(self):
        for f in ELF_FILES:
            path = os.path.join(self.dir, f)
            dyn = run(["objdump", "-T", path])
            self.assertEqual(dyn.returncode, 0, dyn.stderr)
            versions = set(re.findall(r"\bGLIBC_([0-9.]+)\b", dyn.stdout))
            self.assertTrue(versions, f + ": no GLIBC symbol versions at all (objdump -T)?")
            too_new = sorted(v for v in versions if version_tuple(v) > MAX_GLIBC)
            offenders = [l.strip() for l in dyn.stdout.splitlines()
                         if any(re.search(r"\bGLIBC_%s\b" % re.escape(v), l) for v in too_new)]
            self.assertEqual(too_new, [], "%s needs glibc %s:\n%s" % (f, too_new, "\n".join(offenders)))
            # Every version namespace is glibc's (no GLIBCXX, no libcjson's).
            for ns in set(re.findall(r"\b([A-Z][A-Z_]*[A-Z])_[0-9][0-9.]*\b", dyn.stdout)):
                self.assertEqual(ns, "GLIBC", f + ": symbol version namespace " + ns)
            # The version references (verneed), which the dynamic linker checks before any symbol.
            refs = run(["objdump", "-p", path]).stdout
            needs = re.findall(r"0x[0-9a-f]+ 0x[0-9a-f]+ [0-9]+ (\S+)", refs.split("Version References:", 1)[-1])
            self.assertTrue(needs, f)
            for v in needs:
                m = re.match(r"GLIBC_([0-9.]+)$", v)
                self.assertIsNotNone(m, "%s: version reference %s" % (f, v))
                self.assertLessEqual(version_tuple(m.group(1)), MAX_GLIBC, "%s: version reference %s" % (f, v))

    def test_needed_libraries(self):
        for f in ELF_FILES:
            self.assertIn("libc.so.6", self.needed[f], f)
            self.assertEqual(set(self.needed[f]) - ALLOWED_NEEDED, set(), f)
            # glibc < 2.34 has dlopen & co. and pthread_once only in libdl / libpthread.
            self.assertIn("libdl.so.2", self.needed[f], f)
            self.assertIn("libpthread.so.0", self.needed[f], f)
            d = run(["readelf", "-d", os.path.join(self.dir, f)]).stdout
            self.assertNotIn("(RPATH)", d, f)
            self.assertNotIn("(RUNPATH)", d, f)
            exported = run(["nm", "-D", "--defined-only", os.path.join(self.dir, f)]).stdout
            self.assertNotIn("cJSON_", exported, f + " exports cJSON (an application's own cJSON would be interposed)")
            for s in ("dlopen", "dlsym", "pthread_once", "__libc_start_main", "__wrap_stat"):
                self.assertIsNone(re.search(r"\s%s$" % s, exported, re.M), "%s exports %s" % (f, s))

    def test_version_and_help_in_clean_env(self):
        r = run([os.path.join(self.dir, "ldp-check"), "--version"], env=CLEAN_ENV, cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "VERSION")) as f:
            self.assertEqual(r.stdout.strip(), "ldp-check " + f.read().strip())
        r = run([os.path.join(self.dir, "ldp-check"), "--help"], env=CLEAN_ENV, cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--package", r.stdout)

    def test_lavapipe_in_clean_env(self):
        if not os.path.isfile(LAVAPIPE):
            self.skipTest(LAVAPIPE + " is not installed (mesa-vulkan-drivers)")
        out = os.path.join(self.root, "lvp.json")
        r = run(["env", "-i", "PATH=/usr/bin:/bin", os.path.join(self.dir, "ldp-check"), "--format=json",
                 "--output=" + out, LAVAPIPE], env=CLEAN_ENV, cwd=self.root, timeout=600)
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        with open(out) as f:
            j = json.load(f)
        self.assertEqual(j["loader"], os.path.join(self.dir, "libvulkan.so.1"))
        self.assertEqual(j["mock"], os.path.join(self.dir, "libmock_icd_v7.so"))
        self.assertEqual(len(j["drivers"]), 1)
        d = j["drivers"][0]
        self.assertEqual(d["manifest"], LAVAPIPE)
        self.assertNotIn("error", d)
        verdicts = {x["id"]: x for x in d["results"]}
        # LDP_DRIVER_1 ran lavapipe beside the tarball's mock through the tarball's loader.
        for pid in ("LDP_DRIVER_1", "LDP_DRIVER_2", "LDP_DRIVER_3", "LDP_DRIVER_4", "LDP_DRIVER_7"):
            self.assertEqual(verdicts[pid]["verdict"], "pass", "%s: %s" % (pid, verdicts[pid]["reason"]))
        self.assertEqual(verdicts["LDP_DRIVER_6"]["verdict"], "removed")
        for x in d["results"]:
            self.assertNotIn("the check's process", x["reason"], x["id"])
        any_fail = any(x["verdict"] == "fail" for x in d["results"])
        self.assertEqual(r.returncode, 1 if any_fail else 0)
        # SARIF from the same clean room.
        r = run([os.path.join(self.dir, "ldp-check"), "--format=sarif", "--check=LDP_DRIVER_4", LAVAPIPE],
                env=CLEAN_ENV, cwd=self.root, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["version"], "2.1.0")


    def test_llp_check_version_and_help_in_clean_env(self):
        r = run([os.path.join(self.dir, "llp-check"), "--version"], env=CLEAN_ENV, cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout.strip(), r"^llp-check [0-9]+\.[0-9]+\.[0-9]+$")
        r = run([os.path.join(self.dir, "llp-check"), "--help"], env=CLEAN_ENV, cwd=self.root)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--recording-layer", r.stdout)
        with open(os.path.join(self.dir, "README.md")) as f:
            self.assertIn("llp-check", f.read())

    def test_llp_check_validation_layer_in_clean_env(self):
        if not os.path.isfile(VALIDATION):
            self.skipTest(VALIDATION + " is not installed (vulkan-validationlayers)")
        with open(VALIDATION_REPORT) as f:
            recorded = json.load(f)["manifests"][0]
        self.assertEqual(recorded["manifest"], VALIDATION)
        want = {x["id"]: x for x in recorded["results"]}
        self.assertTrue(want)
        out = os.path.join(self.root, "validation.json")
        r = run(["env", "-i", "PATH=/usr/bin:/bin", os.path.join(self.dir, "llp-check"), "--timeout=60",
                 "--format=json", "--output=" + out, VALIDATION], env=CLEAN_ENV, cwd=self.root, timeout=900)
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        with open(out) as f:
            j = json.load(f)
        # The companions beside the binary, not a Bazel runfiles tree.
        self.assertEqual(j["loader"], os.path.join(self.dir, "libvulkan.so.1"))
        self.assertEqual(j["mock"], os.path.join(self.dir, "libmock_icd_v7.so"))
        self.assertEqual(j["recording_layer"], os.path.join(self.dir, "librecording_layer.so"))
        self.assertEqual(len(j["manifests"]), 1)
        m = j["manifests"][0]
        self.assertEqual(m["manifest"], VALIDATION)
        got = {x["id"]: x for x in m["results"]}
        self.assertEqual(set(got), set(want))
        for pid, w in want.items():
            self.assertEqual(got[pid]["verdict"], w["verdict"], "%s: recorded %r, from the tarball %r" % (
                pid, w["reason"], got[pid]["reason"]))
            self.assertNotIn("the check's process", got[pid]["reason"], pid)
        self.assertEqual(r.returncode, 1 if recorded["summary"].get("fail", 0) > 0 else 0, r.stderr)
        # JUnit from the same clean room.
        r = run([os.path.join(self.dir, "llp-check"), "--format=junit", "--check=LLP_LAYER_6", VALIDATION],
                env=CLEAN_ENV, cwd=self.root, timeout=300)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertIn("<testsuite", r.stdout)


if __name__ == "__main__":
    TARBALL = os.path.abspath(sys.argv.pop(1))
    VALIDATION_REPORT = os.path.abspath(sys.argv.pop(1))
    unittest.main()
