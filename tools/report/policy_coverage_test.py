"""Unit tests for policy_coverage.py and policies.py on the fixtures in testdata/."""

import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import policies  # noqa: E402
import policy_coverage  # noqa: E402

DATA = os.path.join(HERE, "testdata")
TABLE = os.path.join(DATA, "policies", "policies.tsv")
COV = os.path.join(DATA, "coverage")


def cov(*names):
    return [os.path.join(COV, n) for n in names]


def run(*argv):
    out = io.StringIO()
    rc = policy_coverage.run(list(argv), out=out)
    return rc, out.getvalue()


class CitationScanTest(unittest.TestCase):
    def test_good_file_citations(self):
        with open(cov("good_test.cc")[0]) as f:
            citations, problems = policy_coverage.find_citations("good_test.cc", f.read())
        self.assertEqual(problems, [])
        self.assertEqual(
            citations,
            [("LDP_LOADER_1", 5), ("LDP_LOADER_2", 14), ("RULE_DRV_SEARCH_ORDER", 14), ("LDP_DRIVER_4", 18),
             ("LDP_DRIVER_6", 20)],
        )

    def test_comments_and_strings_ignored(self):
        text = '// VKT_POLICY("A")\n/* VKT_POLICY("B") */\nauto s = "VKT_POLICY(\\"C\\")";\nauto r = R"x(VKT_POLICY("D"))x";\n'
        self.assertEqual(policy_coverage.find_citations("t", text), ([], []))

    def test_definition_skipped(self):
        text = '#define VKT_POLICY(...) ::vkt::RecordPolicies({__VA_ARGS__})\nVKT_POLICY("LDP_LOADER_1");\n'
        self.assertEqual(policy_coverage.find_citations("t", text), ([("LDP_LOADER_1", 2)], []))

    def test_indirect_ids_from_a_parameter_table(self):
        with open(cov("nonliteral_test.cc")[0]) as f:
            citations, problems = policy_coverage.find_citations("n.cc", f.read())
        self.assertEqual(citations, [("LDP_LOADER_1", 9), ("LDP_LOADER_2", 5), ("RULE_DRV_SEARCH_ORDER", 6)])
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("one ID per string", problems[0])

    def test_non_literal_without_any_id_literal_rejected(self):
        citations, problems = policy_coverage.find_citations("t", "TEST(A, B) { VKT_POLICY(GetParam().rule); }\n")
        self.assertEqual(citations, [])
        self.assertIn("no ID string literal", problems[0])

    def test_empty_and_unterminated(self):
        _, problems = policy_coverage.find_citations("t", "VKT_POLICY();\n")
        self.assertIn("cites no policy", problems[0])
        _, problems = policy_coverage.find_citations("t", 'VKT_POLICY("LDP_LOADER_1"\n')
        self.assertIn("unterminated", problems[0])


class CoverageGateTest(unittest.TestCase):
    def test_complete_with_pending_passes(self):
        rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], *cov("good_test.cc"))
        self.assertEqual(rc, 0, out)
        self.assertIn("4 tested, 1 untestable, 2 pending, 0 missing", out)

    def test_unknown_id_fails(self):
        rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], *cov("good_test.cc", "unknown_test.cc"))
        self.assertEqual(rc, 1, out)
        self.assertIn("unknown policy ID RULE_NOT_IN_TABLE cited at", out)

    def test_non_literal_fails(self):
        rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], *cov("good_test.cc", "nonliteral_test.cc"))
        self.assertEqual(rc, 1, out)
        self.assertIn("one ID per string", out)

    def test_missing_test_fails_without_pending(self):
        rc, out = run("--policies", TABLE, *cov("good_test.cc"))
        self.assertEqual(rc, 1, out)
        self.assertIn("LDP_LOADER_3 has no test and no untestable_reason", out)
        self.assertIn("RULE_LOG_FORMAT has no test", out)
        # Untestable and removed rows never need a test.
        self.assertNotIn("LDP_DRIVER_5 has no test", out)
        self.assertNotIn("LDP_DRIVER_6 has no test", out)

    def test_strict_ignores_pending(self):
        rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], "--strict", *cov("good_test.cc"))
        self.assertEqual(rc, 1, out)
        self.assertIn("LDP_LOADER_3 has no test", out)

    def test_stale_pending_fails(self):
        rc, out = run("--policies", TABLE, "--pending", cov("pending_stale.txt")[0], *cov("good_test.cc"))
        self.assertEqual(rc, 1, out)
        self.assertIn("LDP_LOADER_1 is pending but now has a test", out)
        self.assertIn("(stale)", out)

    def test_prune_removes_only_stale_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            with open(cov("pending_stale.txt")[0]) as src:
                f.write("# comment kept\n" + src.read())
        try:
            rc, out = run("--policies", TABLE, "--pending", f.name, "--prune", *cov("good_test.cc"))
            self.assertEqual(rc, 0, out)
            self.assertIn("pruned 1 line(s)", out)
            with open(f.name) as g:
                self.assertEqual([l.split()[0] for l in g], ["#", "LDP_LOADER_3", "RULE_LOG_FORMAT"])
        finally:
            os.unlink(f.name)

    def test_bad_pending_entries_fail(self):
        rc, out = run("--policies", TABLE, "--pending", cov("pending_bad.txt")[0], *cov("good_test.cc"))
        self.assertEqual(rc, 1, out)
        for needle in ("LDP_LOADER_3 has no reason", "RULE_LOG_FORMAT listed twice",
                       "RULE_NOT_IN_TABLE is not in the policy table", "LDP_DRIVER_5 has an untestable_reason",
                       "LDP_DRIVER_6 is removed"):
            self.assertIn(needle, out)

    def test_no_sources_everything_pending_is_ok(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            for pid in ("LDP_DRIVER_4", "LDP_LOADER_1", "LDP_LOADER_2", "LDP_LOADER_3", "RULE_DRV_SEARCH_ORDER",
                        "RULE_LOG_FORMAT"):
                f.write("%s not yet\n" % pid)
        try:
            rc, out = run("--policies", TABLE, "--pending", f.name)
            self.assertEqual(rc, 0, out)
        finally:
            os.unlink(f.name)

    def test_sources_from_response_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as f:
            f.write(cov("good_test.cc")[0] + "\n")
        try:
            rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], "@" + f.name)
            self.assertEqual(rc, 0, out)
        finally:
            os.unlink(f.name)

    def test_print_pending(self):
        rc, out = run("--policies", TABLE, "--print-pending", *cov("good_test.cc"))
        self.assertEqual(rc, 0)
        self.assertEqual([l.split("\t")[0] for l in out.splitlines()], ["LDP_LOADER_3", "RULE_LOG_FORMAT"])

    def test_tree_root_scans_the_tree(self):
        tree = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(tree, "conformance", "loader", "drivers"))
            shutil.copy(cov("good_test.cc")[0], os.path.join(tree, "conformance", "loader", "drivers", "a_test.cc"))
            shutil.copy(cov("unknown_test.cc")[0], os.path.join(tree, "conformance", "loader", "b_test.cc"))
            with open(os.path.join(tree, "conformance", "loader", "helper.cc"), "w") as f:
                f.write('VKT_POLICY("RULE_IGNORED_FILE");\n')
            cwd = os.getcwd()
            os.chdir(tree)
            try:
                # a_test.cc given explicitly and found in the tree: scanned once (no duplicate citations).
                rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], "--tree-root", tree,
                              "conformance/loader/drivers/a_test.cc")
                self.assertEqual(rc, 1, out)
                self.assertIn("unknown policy ID RULE_NOT_IN_TABLE cited at %s/conformance/loader/b_test.cc:2" % tree, out)
                self.assertNotIn("RULE_IGNORED_FILE", out)
                self.assertIn("2 source file(s), 7 citation(s)", out)
                os.unlink(os.path.join(tree, "conformance", "loader", "b_test.cc"))
                # The tested loader-side IDs need implementing code that names them (next test).
                os.makedirs(os.path.join(tree, "loader"))
                with open(os.path.join(tree, "loader", "impl.c"), "w") as f:
                    f.write("/* LDP_LOADER_1, LDP_LOADER_2, RULE_DRV_SEARCH_ORDER */\n")
                rc, out = run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], "--tree-root", tree)
                self.assertEqual(rc, 0, out)
            finally:
                os.chdir(cwd)
        finally:
            shutil.rmtree(tree)


class ImplementationCitationTest(unittest.TestCase):
    """--tree-root: a loader-side ID (loader-policy, layer-loader-policy, rule) that has a citing test
    must be named by non-test code under loader/, conformance/driver/ or conformance/layer_check/."""

    def setUp(self):
        self.tree = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tree)
        os.makedirs(os.path.join(self.tree, "conformance", "loader"))
        shutil.copy(cov("good_test.cc")[0], os.path.join(self.tree, "conformance", "loader", "a_test.cc"))
        # good_test.cc cites LDP_LOADER_1, LDP_LOADER_2, RULE_DRV_SEARCH_ORDER (loader-side) and
        # LDP_DRIVER_4 / LDP_DRIVER_6 (driver policies: no implementing code required).
        self.write("loader/icd.c", "/* LDP_LOADER_1: no driver */\nstatic const char *t = \"[RULE_DRV_SEARCH_ORDER]\";\n")
        self.write("conformance/driver/rules.c", "// LDP_LOADER_2 is checked here\n")

    def write(self, rel, text):
        path = os.path.join(self.tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def check(self, *extra):
        return run("--policies", TABLE, "--pending", cov("pending_ok.txt")[0], "--tree-root", self.tree, *extra)

    def test_all_named_passes_and_counts(self):
        rc, out = self.check()
        self.assertEqual(rc, 0, out)
        self.assertIn("implementation: 3 tested loader-side IDs, 3 named by implementing code, 0 not", out)

    def test_missing_implementation_citation_fails(self):
        os.unlink(os.path.join(self.tree, "conformance", "driver", "rules.c"))
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("LDP_LOADER_2 (loader-policy) has tests but no implementing code names it", out)
        self.assertNotIn("LDP_LOADER_1 (loader-policy) has tests", out)
        self.assertNotIn("LDP_DRIVER_4", out.split("FAIL")[1])  # driver policies need no implementing code

    def test_tests_testdata_and_partial_words_do_not_count(self):
        os.unlink(os.path.join(self.tree, "conformance", "driver", "rules.c"))
        self.write("loader/icd_test.cc", "// LDP_LOADER_2\n")
        self.write("loader/testdata/x.c", "// LDP_LOADER_2\n")
        self.write("loader/other.c", "// LDP_LOADER_22 and XLDP_LOADER_2\n")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("LDP_LOADER_2 (loader-policy) has tests but no implementing code names it", out)

    def test_impl_root_replaces_the_default_roots(self):
        rc, out = self.check("--impl-root", "loader")
        self.assertEqual(rc, 1, out)
        self.assertIn("LDP_LOADER_2 (loader-policy) has tests but no implementing code names it: cite it in a "
                      "comment of the code that implements it under loader/", out)

    def test_untested_ids_need_no_implementation(self):
        # LDP_LOADER_3 and RULE_LOG_FORMAT are pending (no test): no implementing code required.
        rc, out = self.check()
        self.assertEqual(rc, 0, out)
        self.assertNotIn("RULE_LOG_FORMAT (rule)", out)

    def test_markdown_names_the_code(self):
        md = os.path.join(self.tree, "coverage.md")
        rc, out = self.check("--markdown", md)
        self.assertEqual(rc, 0, out)
        with open(md) as f:
            text = f.read()
        self.assertIn("| ID | kind | summary | tests | code | ldp-check | untestable / pending |", text)
        row = [l for l in text.splitlines() if l.startswith("| `LDP_LOADER_2` |")][0]
        self.assertIn("`conformance/driver/rules.c`", row)
        row = [l for l in text.splitlines() if l.startswith("| `RULE_DRV_SEARCH_ORDER` |")][0]
        self.assertIn("`loader/icd.c`", row)

    def test_check_passes_on_a_fresh_page(self):
        md = os.path.join(self.tree, "coverage.md")
        self.assertEqual(self.check("--markdown", md)[0], 0)
        rc, out = self.check("--check", md)
        self.assertEqual(rc, 0, out)
        self.assertIn("OK: %s is the rendering" % md, out)

    def test_check_fails_on_a_stale_page_naming_the_command(self):
        md = os.path.join(self.tree, "coverage.md")
        self.assertEqual(self.check("--markdown", md)[0], 0)
        # A new implementing file names LDP_LOADER_1: the page's code column is now stale.
        self.write("loader/instance.c", "/* LDP_LOADER_1 */\n")
        rc, out = self.check("--check", md)
        self.assertEqual(rc, 1, out)
        self.assertIn("%s is stale: a fresh rendering" % md, out)
        self.assertIn("replaces 1 line(s) of it by 1", out)
        self.assertIn("+| `LDP_LOADER_1` |", out)
        self.assertIn("Regenerate it at the repository root with:\n  " + policy_coverage.REGENERATE, out)
        self.assertIn("--markdown docs/policy-coverage.md", policy_coverage.REGENERATE)

    def test_check_of_a_missing_page_fails(self):
        rc, out = self.check("--check", os.path.join(self.tree, "absent.md"))
        self.assertEqual(rc, 1, out)
        self.assertIn("cannot read", out)
        self.assertIn(policy_coverage.REGENERATE, out)

    def test_check_needs_the_tree(self):
        with self.assertRaises(SystemExit):
            run("--policies", TABLE, "--check", "x.md", *cov("good_test.cc"))


class TableValidationTest(unittest.TestCase):
    HEADER = "\t".join(policies.COLUMNS) + "\n"

    def load(self, body):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write(self.HEADER + body)
        try:
            return policies.load(f.name)
        finally:
            os.unlink(f.name)

    def problems(self, body):
        with self.assertRaises(policies.TableError) as cm:
            self.load(body)
        return "\n".join(cm.exception.problems)

    def test_fixture_table_loads(self):
        rows, by_id = policies.load(TABLE)
        self.assertEqual(len(rows), 8)
        self.assertTrue(by_id["LDP_DRIVER_5"].untestable)
        self.assertFalse(by_id["LDP_DRIVER_6"].live)

    def test_duplicate_id(self):
        row = "RULE_A_B\trule\ts\tsrc\tn.a.\tno\tlive\t\t\n"
        self.assertIn("duplicate ID RULE_A_B", self.problems(row + row))

    def test_wrong_kind_and_values(self):
        p = self.problems("LDP_LOADER_1\trule\ts\tsrc\tmaybe\tperhaps\talive\t\t\n")
        self.assertIn("must have kind 'loader-policy'", p)
        self.assertIn("enforceable_by_loader must be", p)
        self.assertIn("android must be", p)
        self.assertIn("status must be", p)

    def test_ldp_check_rules(self):
        self.assertIn("needs an ldp_check", self.problems("LDP_DRIVER_3\tdriver-policy\ts\tsrc\tyes\tno\tlive\t\t\n"))
        self.assertIn("does not match LDP_DRIVER_3",
                      self.problems("LDP_DRIVER_3\tdriver-policy\ts\tsrc\tyes\tno\tlive\t\tldp_driver_4_x\n"))
        self.assertIn("only for LDP_DRIVER rows",
                      self.problems("LDP_LOADER_3\tloader-policy\ts\tsrc\tn.a.\tno\tlive\t\tldp_driver_3_x\n"))

    def test_column_count_and_header(self):
        self.assertIn("9 columns", self.problems("RULE_A_B\trule\ts\n").replace("3 columns, expected 9", "9 columns"))
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write("id,kind\n")
        try:
            with self.assertRaises(policies.TableError):
                policies.load(f.name)
        finally:
            os.unlink(f.name)

    def test_split_ids(self):
        self.assertEqual(policies.split_ids("A B,C  D\n"), ["A", "B", "C", "D"])
        self.assertEqual(policies.split_ids(""), [])


if __name__ == "__main__":
    unittest.main()
