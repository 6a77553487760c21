"""//conformance/policies:coverage_test: runs tools/report/policy_coverage.py over the test sources.

Arguments come from the BUILD file (table, pending list, sources listed in POLICY_SOURCES). The real
source tree is found by following the runfiles symlink of policies.tsv, and its
conformance/**/*_test.cc are scanned too, so a new test file counts the moment it exists, whatever
package it lives in. (The target is tagged "external", so it is never served from the cache.)
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
    args = [a for a in argv if a]  # an empty filegroup expands to an empty argument
    table = args[args.index("--policies") + 1]
    root = tree_root(table)
    if root:
        args = ["--tree-root", root] + args
    else:
        print("note: source tree not reachable from runfiles; scanning only the sources given as data")
    return policy_coverage.run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
