"""//tools/lint:stale_names_tree_test: stale_names.py over the source tree this target was built from.

The tree is found by following the runfiles symlink of the allowlist (the argument) back to the
source file (the target is tagged "external", so it is never served from the cache: its input is
the whole tree).
ci/check_format runs the same lint directly.
"""

import os
import sys

import stale_names


def main(argv):
    allowlist = argv[0]
    real = os.path.realpath(allowlist)
    root = os.path.dirname(os.path.dirname(os.path.dirname(real)))
    if real == os.path.abspath(allowlist) or not os.path.isfile(os.path.join(root, "WORKSPACE")):
        print("SKIP: the source tree is not reachable from the runfiles (remote execution?); run "
              "tools/lint/stale_names.py at the repository root")
        return 0
    return stale_names.main(["--root", root, "--allowlist", real])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
