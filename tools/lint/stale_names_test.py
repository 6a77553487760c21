"""Tests of stale_names.py on small trees planted in a temporary directory (standard library only)."""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stale_names  # noqa: E402

# A tree whose every pointer is true: a loader source defining vkl_ functions, a generated header
# declared by a BUILD file, and comments and docs that name them in the ways the lint must accept.
CLEAN = {
    "loader/list.c": (
        "/* The list (internal/list.h); vkl_list_push appends, vkl_list_* are the rest. */\n"
        "#include \"loader/internal/list.h\"\n"
        "#include \"loader/list_gen.h\" /* generated: BUILD */\n"
        "void vkl_list_push(int x) { (void)x; }\n"
        "void vkl_term_Push(void) {}\n"
        "static const char *k = \"a string naming gone.c is code, not a comment\";\n"
    ),
    "loader/internal/list.h": "// list.c; the tests are in ../list_test.cc\nvoid vkl_list_push(int x);\n",
    "loader/list_test.cc": "// Tests of loader/list.c and vkl_list_push (vkl_term_X is a placeholder).\nint x;\n",
    "loader/BUILD": (
        "# list_gen.h comes from gen.py\n"
        "genrule(name = \"g\", outs = [\"list_gen.h\"], cmd = \"python3 $(location gen.py) $@\")\n"
    ),
    "loader/gen.py": (
        '"""Writes list_gen.h (see list.c); run by loader/BUILD."""\n'
        "import sys\n"
        "# vkl_list_push is declared in internal/list.h\n"
        "open(sys.argv[1], 'w').write('/* vkl_gen */ int vkl_gen_count;\\n')\n"
    ),
    "ci/check": (
        "#!/usr/bin/env bash\n"
        "# Runs loader/gen.py and every *.c glob; the shared tree is ../shared/run.sh\n"
        "echo \"# not a comment: nothing_here.sh\"\n"
    ),
    "docs/list.md": (
        "# The list\n\n"
        "`loader/list.c` (`vkl_list_push`), its header `internal/list.h`, the generated `list_gen.h`,\n"
        "the Khronos loader's `vk_layer.h` (allowlisted), sources matching `loader/*.c` or `vkl_gen_*.c`,\n"
        "layers VK_LAYER_a..h, https://example.com/src/elsewhere.c and `<variant>.c` are not stale.\n"
    ),
}


class PlantedTree(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        for rel, text in CLEAN.items():
            self.write(rel, text)
        self.allow = os.path.join(self.root, "allow.txt")
        with open(self.allow, "w") as f:
            f.write("# other projects' files\nvk_layer.h  # Vulkan-Headers\n")

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def lint(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = stale_names.main(["--root", self.root, "--allowlist", self.allow])
        return rc, out.getvalue()

    def test_clean_tree_passes(self):
        rc, out = self.lint()
        self.assertEqual(rc, 0, out)
        self.assertIn("stale_names: no stale file name, vkl_ identifier or policy ID", out)

    def test_planted_file_name_fails_with_file_line_and_name(self):
        self.write("docs/more.md", "# More\n\nThe terminators live in `loader/terminator.c`.\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/more.md:3: stale file name `loader/terminator.c` (no file of that name in the tree)", out)
        self.assertIn("stale_names: 1 stale name(s) in comments and docs of 1 file(s)", out)

    def test_planted_identifier_in_a_c_comment_fails(self):
        self.write("loader/set.c", "int a;\n/* vkl_set_release drops the references. */\nint b;\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("loader/set.c:2: stale identifier `vkl_set_release` (not defined or declared anywhere", out)

    def test_identifier_named_only_in_comments_is_not_defined(self):
        self.write("loader/a.h", "// vkl_only_here\n")
        self.write("loader/b.h", "/* vkl_only_here again */\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("loader/a.h:1: stale identifier `vkl_only_here`", out)
        self.assertIn("loader/b.h:1: stale identifier `vkl_only_here`", out)

    def test_placeholder_needs_a_real_prefix(self):
        self.write("docs/p.md", "`vkl_tramp_X` per command.\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/p.md:1: stale identifier `vkl_tramp_X` (no identifier in the code starts with it)", out)

    def test_stale_prefix(self):
        self.write("docs/p.md", "The `vkl_map_*` functions.\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/p.md:1: stale identifier `vkl_map_*` (no identifier in the code starts with it)", out)

    def test_name_in_the_wrong_directory_names_the_real_path(self):
        self.write("mock/README.md", "See `mock/list.c`.\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("mock/README.md:1: stale file name `mock/list.c` (no such path; list.c is loader/list.c)", out)

    def test_python_comment_docstring_and_shell_comment(self):
        self.write("tools/x.py", '"""Reads old.py."""\n# and older.sh\nX = "strings.py in code are fine"\n')
        self.write("tools/y.sh", "#!/bin/sh\necho hi  # calls gone.sh\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("tools/x.py:1: stale file name `old.py`", out)
        self.assertIn("tools/x.py:2: stale file name `older.sh`", out)
        self.assertIn("tools/y.sh:2: stale file name `gone.sh`", out)
        self.assertNotIn("strings.py", out)

    def test_a_name_in_another_scripts_code_does_not_make_it_exist(self):
        # tools/t.py's comment may name what its own code writes; docs/t.md may not.
        self.write("tools/t.py", "# writes made.c\nopen('made.c', 'w')\n")
        self.write("docs/t.md", "See made.c.\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/t.md:1: stale file name `made.c`", out)
        self.assertNotIn("tools/t.py", out)

    def test_policy_ids_are_checked_against_the_policy_table(self):
        table = "id\tkind\tsummary\nLDP_DRIVER_3\tdriver-policy\tx\nRULE_SETTINGS_FILE\trule\ty\n"
        self.write("conformance/policies/policies.tsv", table)
        self.write("loader/s.c", "/* LDP_DRIVER_3, RULE_SETTINGS_FILE, RULE_SETTINGS_* and the LDP_DRIVER family. */\n"
                   "#ifndef LDP_CHECK_H /* an include guard, not an ID */\n#endif\n")
        rc, out = self.lint()
        self.assertEqual(rc, 0, out)
        self.write("loader/t.c", "int a;\n/* RULE_THREADS_REENTRY: nested creations (LDP_DRIVER_33, RULE_GONE_*). */\n")
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("loader/t.c:2: stale policy ID `RULE_THREADS_REENTRY` (no row of conformance/policies/policies.tsv)",
                      out)
        self.assertIn("loader/t.c:2: stale policy ID `LDP_DRIVER_33`", out)
        self.assertIn("loader/t.c:2: stale policy ID `RULE_GONE_*` (no ID in conformance/policies/policies.tsv starts", out)
        self.assertNotIn("s.c", out)
        with open(os.path.join(self.root, "conformance/policies/policies.tsv"), "a") as f:
            f.write("RULE_THREADS_REENTRY\trule\tz\nLDP_DRIVER_33\tdriver-policy\tw\nRULE_GONE_SOON\trule\tv\n")
        rc, out = self.lint()
        self.assertEqual(rc, 0, out)

    def test_allowlist(self):
        self.write("docs/k.md", "The Khronos loader's `loader_settings.c`.\n")
        self.assertEqual(self.lint()[0], 1)
        with open(self.allow, "a") as f:
            f.write("loader_settings.c  # the Khronos loader's sources\n")
        rc, out = self.lint()
        self.assertEqual(rc, 0, out)

    @unittest.skipUnless(shutil.which("git"), "git not installed")
    def test_in_a_git_tree_only_tracked_files_exist(self):
        git = ["git", "-C", self.root, "-c", "user.name=t", "-c", "user.email=t@localhost"]
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "tree"], check=True)
        rc, out = self.lint()
        self.assertEqual(rc, 0, out)
        # An untracked file is not part of the tree: the doc naming it is stale until it is added.
        self.write("loader/new.c", "void vkl_new(void);\n")
        self.write("docs/new.md", "`loader/new.c`\n")
        subprocess.run(git + ["add", "docs/new.md"], check=True)
        rc, out = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/new.md:1: stale file name `loader/new.c`", out)
        subprocess.run(git + ["add", "loader/new.c"], check=True)
        self.assertEqual(self.lint()[0], 0)


class Scanners(unittest.TestCase):
    def test_c_comments_keep_line_numbers_and_skip_strings(self):
        text = 'int a; // one.c\nconst char *s = "/* not.c */";\n/* two.c\n   three.c */ int b;\nR"x(// raw.c)x";\n'
        comments, code = stale_names.c_comments(text)
        self.assertEqual([(l, t.strip()) for l, t in comments], [(1, "one.c"), (3, "two.c"), (4, "three.c")])
        self.assertIn("not.c", code)
        self.assertIn("raw.c", code)

    def test_sh_comments_outside_quotes(self):
        comments, _ = stale_names.sh_comments("#!/bin/bash\necho '# no.sh' \"#no2.sh\" ${#a[@]} # yes.sh\n")
        self.assertEqual(comments, [(2, " yes.sh")])


if __name__ == "__main__":
    unittest.main()
