"""//conformance/policies:checker_rows_test: the checkers' rule rows agree with the policy table.

ldp-check and llp-check take the text of each SARIF rule from policies.tsv at build time
(conformance/driver/gen_rules.py, the rules_gen genrules), but the rows themselves are written by
hand in C: the check tables (`ldp_checks[]`, `llp_checks[]`: ID and check name) and the help tables
(`k_rules[]`, `k_help[]` in the checkers' rules.c). This test reads those tables from the source
tree (whichever .c file of conformance/driver/ or conformance/layer_check/ holds them, so a file
split does not break it) and fails when
  * an LDP_DRIVER_* row of the table has no check, or its `ldp_check` column is not the check's name;
  * the check table has an LDP_DRIVER_* ID the policy table lacks;
  * an LDP_DRIVER_* or RULE_ICDPKG_* row, or a check, has no help row in ldp-check's rules.c, or a
    help row names an ID that is neither;
  * the LLP_LAYER_* rows, llp-check's checks and its help rows are not the same IDs.
The source tree is found through the runfiles symlink of policies.tsv (tagged external: never cached).
"""

import glob
import os
import re
import shutil
import sys
import tempfile
import unittest

import policies  # //tools/report:policies_lib

_ROW = re.compile(r'\{\s*"([A-Z][A-Z0-9_]*)",\s*(?:"([^"]*)"|NULL)')


def c_table(directory, symbol):
    """(file, [(id, second string or None)]) of the C array `symbol[] = {...}` in directory/*.c."""
    for path in sorted(glob.glob(os.path.join(directory, "*.c"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        m = re.search(r"\b%s\[\]\s*=\s*\{" % re.escape(symbol), text)
        if m:
            end = text.find("\n};", m.end())
            return path, [(i, s) for i, s in _ROW.findall(text[m.end():end if end >= 0 else len(text)])]
    return None, []


def problems(rows, root):
    """Every disagreement between the policy rows and the checkers' tables under root."""
    out = []
    drv_dir = os.path.join(root, "conformance", "driver")
    lay_dir = os.path.join(root, "conformance", "layer_check")
    table = {p.id: p for p in rows}

    where, checks = c_table(drv_dir, "ldp_checks")
    if where is None:
        return ["no ldp_checks[] table in %s/*.c" % drv_dir]
    check_names = dict(checks)
    for pid, p in table.items():
        if pid.startswith("LDP_DRIVER_"):
            if pid not in check_names:
                out.append("%s has no row in ldp_checks[] (%s)" % (pid, where))
            elif (check_names[pid] or "") != (p.ldp_check or ""):
                out.append("%s: ldp_checks[] names the check %r, policies.tsv's ldp_check column %r"
                           % (pid, check_names[pid], p.ldp_check))
    for pid in check_names:
        if pid.startswith("LDP_DRIVER_") and pid not in table:
            out.append("ldp_checks[] (%s) has %s, which policies.tsv lacks" % (where, pid))
    hwhere, helps = c_table(drv_dir, "k_rules")
    help_ids = {i for i, _ in helps}
    wanted = set(check_names) | {pid for pid in table if pid.startswith(("LDP_DRIVER_", "RULE_ICDPKG_"))}
    for pid in sorted(wanted - help_ids):
        out.append("%s has no help row in ldp-check's k_rules[] (%s)" % (pid, hwhere))
    for pid in sorted(help_ids - wanted):
        out.append("ldp-check's k_rules[] (%s) has %s, which is neither a check nor a policy row" % (hwhere, pid))

    lwhere, lchecks = c_table(lay_dir, "llp_checks")
    if lwhere is None:
        return out + ["no llp_checks[] table in %s/*.c" % lay_dir]
    lhwhere, lhelps = c_table(lay_dir, "k_help")
    policy_ids = {pid for pid in table if pid.startswith("LLP_LAYER_")}
    for name, ids, w in (("llp_checks[]", {i for i, _ in lchecks}, lwhere),
                         ("llp-check's k_help[]", {i for i, _ in lhelps}, lhwhere)):
        for pid in sorted(policy_ids - ids, key=_num):
            out.append("%s has no row in %s (%s)" % (pid, name, w))
        for pid in sorted(ids - policy_ids, key=_num):
            out.append("%s (%s) has %s, which policies.tsv lacks" % (name, w, pid))
    return out


def _num(pid):
    m = re.search(r"([0-9]+)$", pid)
    return (pid.rstrip("0123456789"), int(m.group(1)) if m else 0)


def tree_root(table):
    real = os.path.realpath(table)
    root = os.path.dirname(os.path.dirname(os.path.dirname(real)))
    if real != os.path.abspath(table) and os.path.isdir(os.path.join(root, "conformance", "driver")):
        return root
    return None


TABLE = None


class CheckerRows(unittest.TestCase):
    def test_the_tree_agrees_with_the_policy_table(self):
        root = tree_root(TABLE)
        if root is None:
            self.skipTest("the source tree is not reachable from the runfiles")
        rows, _ = policies.load(TABLE)
        found = problems(rows, root)
        self.assertEqual(found, [], "\n  " + "\n  ".join(found))

    def test_a_planted_disagreement_is_found(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        os.makedirs(os.path.join(tmp, "conformance", "driver"))
        os.makedirs(os.path.join(tmp, "conformance", "layer_check"))

        def write(rel, text):
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)

        write("conformance/driver/checks.c", 'const struct ldp_check_def ldp_checks[] = {\n'
              '    {"LDP_DRIVER_1", "ldp_driver_1_renamed", "t", f, 0, true},\n'
              '    {"LINT_X", "lint_x", "t", g, 0, true},\n};\n')
        write("conformance/driver/rules.c", 'static const struct { const char *id, *text, *help; } k_rules[] = {\n'
              '    {"LDP_DRIVER_1", NULL, "h"},\n    {"LDP_DRIVER_9", NULL, "h"},\n};\n')
        write("conformance/layer_check/checks_a.c", 'const struct llp_check_def llp_checks[] = {\n'
              '    {"LLP_LAYER_1", "one", "t", f, 0, true},\n};\n')
        write("conformance/layer_check/rules.c", 'static const struct { const char *id, *help; } k_help[] = {\n'
              '    {"LLP_LAYER_1", "h"},\n    {"LLP_LAYER_2", "h"},\n};\n')
        rows = [policies.Policy([pid, "", "s", "src", "no", "no", "live", "", check], n)
                for n, (pid, check) in enumerate((("LDP_DRIVER_1", "ldp_driver_1_coexistence"),
                                                  ("LDP_DRIVER_2", "ldp_driver_2_zero"), ("LLP_LAYER_1", "")))]
        found = problems(rows, tmp)
        self.assertIn("LDP_DRIVER_1: ldp_checks[] names the check 'ldp_driver_1_renamed', policies.tsv's "
                      "ldp_check column 'ldp_driver_1_coexistence'", found)
        self.assertTrue(any(f.startswith("LDP_DRIVER_2 has no row in ldp_checks[]") for f in found), found)
        self.assertTrue(any(f.startswith("LINT_X has no help row") for f in found), found)
        self.assertTrue(any("has LDP_DRIVER_9, which is neither" in f for f in found), found)
        self.assertTrue(any("llp-check's k_help[]" in f and "has LLP_LAYER_2, which policies.tsv lacks" in f
                            for f in found), found)


if __name__ == "__main__":
    TABLE = sys.argv.pop(1)
    unittest.main()
