"""Tests for report.py on hand-written test.xml fixtures and, when built by Bazel, on the XML that
the installed googletest really writes for RecordProperty (//tools/report:gtest_property_xml)."""

import io
import json
import os
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

DATA = os.path.join(HERE, "testdata")
TABLE = os.path.join(DATA, "policies", "policies.tsv")
OURS = os.path.join(DATA, "results", "ours")
KHRONOS = os.path.join(DATA, "results", "khronos")
UNKNOWN = os.path.join(DATA, "results", "unknown")


def run(*argv):
    out = io.StringIO()
    rc = report.run(list(argv), out=out)
    return rc, out.getvalue()


def verdicts(text):
    """ID -> list of verdict cells from the text table."""
    got = {}
    for line in text.splitlines():
        parts = line.split()
        if parts and not line[0].isspace() and (parts[0].startswith("LDP_") or parts[0].startswith("RULE_") or parts[0].startswith("LLP_")):
            got[parts[0]] = line
    return got


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_verdicts_and_exit_status_on_failures(self):
        rc, out = run("--policies", TABLE, "--results", "ours=" + OURS)
        self.assertEqual(rc, 1, out)
        v = verdicts(out)
        self.assertRegex(v["LDP_LOADER_1"], r"\b1\s+1/0/0/0\s+PASS$")
        self.assertRegex(v["LDP_LOADER_3"], r"PASS$")  # old gtest: property as a testcase attribute
        self.assertRegex(v["RULE_DRV_SEARCH_ORDER"], r"\b2\s+1/1/0/0\s+FAIL$")  # shards are merged
        self.assertRegex(v["LDP_DRIVER_4"], r"0/0/1/0\s+SKIPPED$")
        self.assertRegex(v["LDP_DRIVER_5"], r"UNTESTABLE$")
        self.assertRegex(v["LDP_DRIVER_6"], r"REMOVED$")
        self.assertRegex(v["RULE_LOG_FORMAT"], r"NO TEST$")
        self.assertIn("Discovery.SearchOrderXdg (conformance/loader/driver_test) [RULE_DRV_SEARCH_ORDER]: driver_test.cc:42 Expected order", out)
        self.assertIn("loader/crash_test: exited with error code 134", out)
        self.assertIn("summary [ours]: 8 policies: FAIL 1, PASS 3", out)
        self.assertIn("1 failure(s) outside any policy", out)

    def test_deviation_is_not_a_failure(self):
        rc, out = run("--policies", TABLE, "--results", "khronos=" + KHRONOS)
        self.assertEqual(rc, 0, out)
        self.assertRegex(verdicts(out)["RULE_LOG_FORMAT"], r"0/0/0/1\s+DEVIATION$")
        self.assertRegex(verdicts(out)["LDP_LOADER_2"], r"PASS$")  # comma-separated property value

    def test_one_testlogs_tree_split_by_loader_property(self):
        rc, out = run("--policies", TABLE, "--results", os.path.join(DATA, "results", "mixed"))
        self.assertEqual(rc, 1, out)
        head = out.splitlines()[0].split()
        self.assertEqual([h for h in head if h in ("ours", "khronos")], ["ours", "khronos"])  # ours first
        v = verdicts(out)
        self.assertRegex(v["RULE_LOG_FORMAT"], r"1/0/0/0\s+PASS\s+1\s+0/0/0/1\s+DEVIATION$")
        # A failure is never excused by a deviation property (it happened outside VKT_POLICY's scope).
        self.assertRegex(v["LDP_LOADER_2"], r"NO TEST\s+1\s+0/1/0/0\s+FAIL$")
        self.assertRegex(v["LDP_LOADER_1"], r"PASS\s+1\s+1/0/0/0\s+PASS$")
        self.assertIn("summary [ours]", out)
        self.assertIn("summary [khronos]", out)

    def test_unknown_id_in_results_fails(self):
        rc, out = run("--policies", TABLE, "--results", UNKNOWN)
        self.assertEqual(rc, 1, out)
        self.assertIn("RULE_DOES_NOT_EXIST: X.Y (x_test)", out)
        self.assertIn("summary [unknown]", out)  # label defaults to the directory name

    def test_all_output_formats_with_two_loaders(self):
        md, page, junit, text = (os.path.join(self.tmp, n) for n in ("r.md", "sub/r.html", "r.xml", "r.txt"))
        rc, out = run("--policies", TABLE, "--results", "ours=" + OURS, "--results", "khronos=" + KHRONOS,
                      "--markdown", md, "--html", page, "--junit", junit, "--text", text, "--quiet")
        self.assertEqual(rc, 1)
        self.assertEqual(len(out.splitlines()), 4, out)  # --quiet: 2 results lines + 2 column summaries
        with open(md) as f:
            m = f.read()
        self.assertIn("| ID | summary | ours tests |", m)
        self.assertIn("| `RULE_DRV_SEARCH_ORDER` | Fixture: search order. | 2 | 1 | 1 | 0 | 0 | **FAIL** | 1 | 1 | 0 | 0 | 0 | PASS |", m)
        self.assertIn("log format \\| with a pipe", m)  # pipes escaped
        with open(page) as f:
            h = f.read()
        self.assertTrue(h.startswith("<!DOCTYPE html>"))
        self.assertNotIn("<script", h)
        self.assertNotIn("http", h.replace("http-equiv", ""))  # self-contained: no external resources
        self.assertIn("log format | with a pipe &amp; &lt;html&gt;", h)
        self.assertIn("<th>ours</th>", h)
        self.assertIn("<th>khronos</th>", h)
        self.assertIn("#c62828", h)  # red cell
        self.assertIn("#2e7d32", h)  # green cell
        root = ET.parse(junit).getroot()
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites],
                         ["policies.ours", "policies.khronos", "results.ours", "results.khronos"])
        ours = {tc.get("name"): tc for tc in suites[0].findall("testcase")}
        self.assertIsNotNone(ours["RULE_DRV_SEARCH_ORDER"].find("failure"))
        self.assertIsNone(ours["LDP_LOADER_1"].find("failure"))
        self.assertIsNotNone(ours["LDP_LOADER_1"].find("properties"))
        self.assertEqual(ours["LDP_DRIVER_5"].find("skipped").get("message"), "Needs the Khronos conformant-products list.")
        integrity = root.find("testsuite[@name='results.ours']/testcase")
        self.assertIsNotNone(integrity.find("failure"))  # the crashed target
        self.assertIsNone(root.find("testsuite[@name='results.khronos']/testcase").find("failure"))
        with open(text) as f:
            self.assertIn("summary [khronos]", f.read())

    def test_bep_restricts_to_one_invocation(self):
        # Only the shard-1 file belongs to "this invocation"; the crash and shard 2 are older results.
        xml = os.path.join(OURS, "conformance", "loader", "driver_test", "shard_1_of_2", "test.xml")
        bep = os.path.join(self.tmp, "bep.json")
        with open(bep, "w") as f:
            f.write('{"id":{"started":{}},"started":{"command":"test"}}\n')
            f.write(json.dumps({"id": {"testResult": {"label": "//conformance/loader:driver_test", "shard": 1}},
                                "testResult": {"status": "FAILED", "testActionOutput": [
                                    {"name": "test.log", "uri": "file://" + xml[:-3] + "log"},
                                    {"name": "test.xml", "uri": "file://" + xml}]}}) + "\n")
        rc, out = run("--policies", TABLE, "--results", "ours=" + OURS, "--bep", bep)
        self.assertEqual(rc, 1, out)
        self.assertIn("1 test.xml file(s), 0 failure(s) outside any policy", out)
        self.assertRegex(verdicts(out)["LDP_LOADER_3"], r"NO TEST$")  # shard 2 not read
        rc, _ = run("--policies", TABLE, "--results", "a=" + OURS, "--results", "b=" + KHRONOS, "--bep", bep)
        self.assertEqual(rc, 2)

    def test_usage_errors(self):
        rc, _ = run("--policies", TABLE, "--results", os.path.join(self.tmp, "missing"))
        self.assertEqual(rc, 2)
        rc, _ = run("--policies", TABLE, "--results", "a=" + OURS, "--results", "a=" + KHRONOS)
        self.assertEqual(rc, 2)
        rc, _ = run("--policies", os.path.join(self.tmp, "none.tsv"), "--results", OURS)
        self.assertEqual(rc, 2)

    def test_empty_results_dir_is_all_no_test(self):
        rc, out = run("--policies", TABLE, "--results", "empty=" + self.tmp)
        self.assertEqual(rc, 0, out)
        self.assertIn("NO TEST 6;", out)

    def test_real_googletest_xml(self):
        """The XML the installed googletest writes for RecordProperty (built by Bazel; skipped otherwise)."""
        xml = os.environ.get("GTEST_PROPERTY_XML")
        if not xml:
            self.skipTest("GTEST_PROPERTY_XML not set (run through bazel test //tools/report:report_test)")
        target = os.path.join(self.tmp, "conformance", "probe_test")
        os.makedirs(target)
        shutil.copy(xml, os.path.join(target, "test.xml"))
        rc, out = run("--policies", TABLE, "--results", "real=" + self.tmp)
        self.assertEqual(rc, 1, out)  # the probe has one deliberately failing case
        v = verdicts(out)
        self.assertRegex(v["LDP_LOADER_1"], r"\b1\s+1/0/0/0\s+PASS$")
        self.assertRegex(v["LDP_LOADER_2"], r"\b1\s+0/1/0/0\s+FAIL$")
        self.assertRegex(v["LDP_LOADER_3"], r"\b1\s+0/0/1/0\s+SKIPPED$")
        self.assertRegex(v["RULE_LOG_FORMAT"], r"\b1\s+0/0/0/1\s+DEVIATION$")
        self.assertRegex(v["RULE_DRV_SEARCH_ORDER"], r"\b1\s+1/0/0/0\s+PASS$")


if __name__ == "__main__":
    unittest.main()
