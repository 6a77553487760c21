"""//tools/report:policy_coverage_doc_test: docs/policy-coverage.md is a fresh rendering.

The page is generated (policy_coverage.py --markdown) from conformance/policies/policies.tsv,
pending.txt, the VKT_POLICY citations of conformance/**/*_test.cc and the IDs named by the
implementing code, so a new test, a renamed test case, a moved file or an edited row makes it
stale. This test renders it afresh from the source tree (found, as coverage_test finds it, through
the runfiles symlink of policies.tsv; the target is tagged "external", never cached) and fails
with the difference and the command that regenerates it:

  python3 tools/report/policy_coverage.py --policies conformance/policies/policies.tsv \\
      --pending conformance/policies/pending.txt --tree-root . --markdown docs/policy-coverage.md
"""

import os
import sys

import policy_coverage  # //tools/report:policy_coverage_lib


def tree_root(table):
    real = os.path.realpath(table)
    root = os.path.dirname(os.path.dirname(os.path.dirname(real)))
    if os.path.isfile(os.path.join(root, "conformance", "policies", "policies.tsv")) and real != os.path.abspath(table):
        return root
    return None


def main(argv):
    table, pending, page = argv
    root = tree_root(table)
    if root is None:
        print("SKIP: the source tree is not reachable from the runfiles (remote execution?); run\n  "
              + policy_coverage.REGENERATE + "\nand compare by hand")
        return 0
    return policy_coverage.run(["--policies", table, "--pending", pending, "--tree-root", root, "--check", page])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
