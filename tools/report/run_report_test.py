"""`bazel run //:report` end to end (run_report.py + durations.py + report.py) with a stand-in bazel
(testdata/bazel/fake_bazel.py) that runs a real conformance test binary,
//tools/report:report_probe_test_ours (2 cases: ReportProbe.OneDriverOneDevice, LDP_LOADER_3, passes on
both loaders; Instance.LogLinesUseLoaderPrefix, RULE_LOG_FORMAT, is a listed Khronos deviation),
against the loaders named."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", "vk_loader_harness"))
KHRONOS = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"
TARGET = "//tools/report:report_probe_test_ours"
BINARY = "tools/report/report_probe_test_ours"  # the same sources, built in tools/report (BUILD)


def src(rel):
    return os.path.join(SRC, rel)


class RunReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.environ.get("TEST_SRCDIR"):
            raise unittest.SkipTest("needs the runfiles: bazel test //tools/report:run_report_test")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        # The workspace run_report reads: the policy table and the built-in deviations files.
        self.ws = os.path.join(self.tmp, "ws")
        for rel in ("conformance/policies/policies.tsv", "conformance/deviations/khronos.tsv"):
            os.makedirs(os.path.dirname(os.path.join(self.ws, rel)), exist_ok=True)
            shutil.copyfile(src(rel), os.path.join(self.ws, rel))
        self.root = os.path.join(self.tmp, "bazel")
        os.makedirs(os.path.join(self.root, "bazel-bin", "loader"))
        # "ours" as bazel-bin holds it (the report names it by that path).
        shutil.copyfile(src("loader/libvulkan.so.1"), os.path.join(self.root, "bazel-bin", "loader", "libvulkan.so.1"))
        self.loaders = os.path.join(self.tmp, "loaders")
        os.makedirs(self.loaders)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy(self, source, name):
        """A byte copy of a loader at a path of its own (as a maintainer's build lands)."""
        d = os.path.join(self.loaders, name)
        os.makedirs(d)
        shutil.copyfile(source, os.path.join(d, "libvulkan.so.1"))
        return os.path.join(d, "libvulkan.so.1")

    def report(self, *args, out="out"):
        env = dict(os.environ)
        for k in ("VKT_LOADER", "VKT_LOADER_NAME", "VKT_DEVIATIONS"):
            env.pop(k, None)
        env.update({
            "BUILD_WORKSPACE_DIRECTORY": self.ws,
            "BUILD_WORKING_DIRECTORY": self.tmp,
            "BAZEL": src("tools/report/testdata/bazel/fake_bazel.py"),
            "FAKE_BAZEL_ROOT": self.root,
            "FAKE_BAZEL_TARGETS": ";".join([
                "%s|vkt-loader-ours|gtest|%s|VKT_LOADER_NAME=ours" % (
                    TARGET, src(BINARY)),
                "//conformance/driver:ldp_check_test||xml|%s|" % src("tools/report/testdata/bazel/ldp_check_shared.xml"),
            ]),
        })
        self.out = os.path.join(self.tmp, out)
        p = subprocess.run([sys.executable, src("tools/report/run_report.py"), "--out=" + self.out] + list(args)
                           + ["//tools/report/...", "//conformance/..."],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=600)
        return p.returncode, p.stdout

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

    def verdicts(self):
        return {col: data["policies"] for col, data in json.loads(self.read("report.json"))["columns"].items()}

    def calls(self):
        with open(os.path.join(self.root, "calls.txt")) as f:
            return f.read()

    def test_copied_khronos_loader_gets_deviations_by_name(self):
        copy = self.copy(KHRONOS, "opt-vk")
        rc, out = self.report("--loader=khronos=" + copy)
        self.assertEqual(rc, 0, out)
        v = self.verdicts()
        self.assertEqual(list(v), ["khronos"])
        self.assertEqual(v["khronos"]["RULE_LOG_FORMAT"], "DEVIATION", out)
        self.assertEqual(v["khronos"]["LDP_LOADER_3"], "PASS", out)
        self.assertNotIn("FAIL", v["khronos"].values(), out)
        # The loader-independent ldp-check results count in the column (as in //:check).
        self.assertEqual(v["khronos"]["LDP_DRIVER_11"], "PASS", out)
        # The run got the copy's path and the name, never Debian's path.
        self.assertIn("--test_env=VKT_LOADER=" + copy, self.calls())
        self.assertIn("--test_env=VKT_LOADER_NAME=khronos", self.calls())
        md = self.read("report.md")
        self.assertIn("# Loader conformance: khronos", md)
        self.assertIn("| khronos | `%s` | 1.3." % copy, md)  # path and the version it reports
        with open(KHRONOS, "rb") as f:
            import hashlib
            self.assertIn(hashlib.sha256(f.read()).hexdigest()[:16], md)
        self.assertIn("conformance/deviations/khronos.tsv", md)
        # Which tests deviated, and the deviations file's reason.
        self.assertIn("## Deviations (khronos): 1 tests", md)
        self.assertIn("`Instance.LogLinesUseLoaderPrefix`", md)
        self.assertIn("RULE_LOG_FORMAT: Loader 1.3.239 writes log lines as", md)
        page = self.read("report.html")
        self.assertIn("<title>Loader conformance: khronos</title>", page)
        self.assertNotIn(self.root, page)  # nothing points into bazel-testlogs or a temporary folder

    def test_same_copy_under_another_name_has_no_deviations_unless_given(self):
        copy = self.copy(KHRONOS, "opt-vk")
        rc, out = self.report("--loader=mine=" + copy)
        self.assertEqual(rc, 1, out)
        self.assertEqual(self.verdicts()["mine"]["RULE_LOG_FORMAT"], "FAIL")
        self.assertIn("failing tests [mine] (1):", out)
        # Failures are listed once per test, with their logs copied into the report directory.
        md = self.read("report.md")
        self.assertEqual(md.count("Instance.LogLinesUseLoaderPrefix"), 1, md)
        log = "logs/mine/tools/report/report_probe_test_ours/test.log"
        self.assertIn("](%s)" % log, md)
        self.assertTrue(os.path.isfile(os.path.join(self.out, log)))
        rc, out = self.report("--loader=mine=" + copy, "--deviations=mine=" + src("conformance/deviations/khronos.tsv"))
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.verdicts()["mine"]["RULE_LOG_FORMAT"], "DEVIATION")
        self.assertIn("--test_env=VKT_DEVIATIONS=" + src("conformance/deviations/khronos.tsv"), self.calls())

    def test_two_builds_of_one_loader_side_by_side(self):
        a = self.copy(src("loader/libvulkan.so.1"), "build-a")
        b = self.copy(src("loader/libvulkan.so.1"), "build-b")
        rc, out = self.report("--loader=ours=" + a, "--loader=ours-b=" + b, "--loader=khronos")
        self.assertEqual(rc, 0, out)
        v = self.verdicts()
        self.assertEqual(list(v), ["khronos", "ours", "ours-b"])
        for col in ("ours", "ours-b"):
            self.assertEqual(v[col]["RULE_LOG_FORMAT"], "PASS")
            self.assertEqual(v[col]["LDP_DRIVER_11"], "PASS")
        self.assertEqual(v["khronos"]["RULE_LOG_FORMAT"], "DEVIATION")
        names = re.findall(r"--test_env=VKT_LOADER_NAME=(\S+)", self.calls())
        self.assertEqual(names, ["ours", "ours-b", "khronos"])
        self.assertIn("| ours-b | `%s` |" % b, self.read("report.md"))

    def test_loader_that_crashes_on_load(self):
        crash = self.copy(src("tools/report/testdata/libcrash_loader.so"), "crash")
        rc, out = self.report("--loader=ours", "--loader=crashy=" + crash)
        self.assertEqual(rc, 1, out)
        v = self.verdicts()
        self.assertEqual(v["crashy"]["RULE_LOG_FORMAT"], "FAIL")
        self.assertEqual(v["crashy"]["LDP_LOADER_3"], "FAIL")
        self.assertEqual(v["ours"]["RULE_LOG_FORMAT"], "PASS")  # the other loader's run is intact
        # signal 11 from its constructor; under --config=asan the sanitizer runtime aborts first (6)
        self.assertRegex(self.read("report.md"), r"crashed on load \(signal (11|6)\)")
        self.assertIn("summary [crashy]", out)

    def test_baseline_lists_regressions_first_and_sets_the_exit_status(self):
        good = self.copy(src("loader/libvulkan.so.1"), "good")
        crash = self.copy(src("tools/report/testdata/libcrash_loader.so"), "broken")
        rc, out = self.report("--loader=ours=" + good, out="base")
        self.assertEqual(rc, 0, out)
        baseline = os.path.join(self.tmp, "base", "report.json")
        # The same loader again: no regression.
        rc, out = self.report("--loader=ours=" + good, "--baseline=" + baseline, out="same")
        self.assertEqual(rc, 0, out)
        self.assertIn("regressions against the baseline: 0", out)
        # A broken build: every test of the suite newly fails.
        rc, out = self.report("--loader=ours=" + crash, "--baseline=" + baseline, out="broken")
        self.assertEqual(rc, 1, out)
        self.assertIn("regressions against the baseline: 4", out)  # 2 tests, 2 policies
        self.assertIn("Newly failing tests [ours]: 2", out)
        self.assertIn("tools/report/report_probe_test Instance.LogLinesUseLoaderPrefix (was passed)", out)
        self.assertIn("Newly failing policies [ours]:", out)
        self.assertIn("RULE_LOG_FORMAT (was PASS)", out)
        md = self.read("report.md")
        self.assertLess(md.index("Newly failing tests"), md.index("| ID | summary"))
        # Back to the good build with the broken one as the baseline: newly passing, exit 0.
        rc, out = self.report("--loader=ours=" + good, "--baseline=" + os.path.join(self.tmp, "broken", "report.json"),
                              out="fixed")
        self.assertEqual(rc, 0, out)
        self.assertIn("Newly passing tests [ours]: 2", out)
        self.assertNotIn("Newly failing", out)
        # Another loader's report as the baseline (one column each: compared whatever the names).
        rc, out = self.report("--loader=khronos", "--baseline=" + baseline, out="vs-khronos")
        self.assertEqual(rc, 0, out)  # khronos deviates where ours passes: not a failure

    def test_usage_errors(self):
        rc, out = self.report("--loader=" + KHRONOS)
        self.assertEqual(rc, 2, out)
        self.assertIn("name it, --loader=NAME=PATH", out)
        rc, out = self.report("--loader=x=/nonexistent/libvulkan.so.1")
        self.assertEqual(rc, 2, out)
        rc, out = self.report("--loader=khronos", "--deviations=other=" + src("conformance/deviations/khronos.tsv"))
        self.assertEqual(rc, 2, out)
        rc, out = self.report("--loader=ours", "--loader=ours")
        self.assertEqual(rc, 2, out)


if __name__ == "__main__":
    unittest.main()
