#!/usr/bin/env python3
"""llp-check --installed against the reviewed golden file installed_verdicts.tsv: every FAIL that
llp-check prints on the layers installed here must be listed there (reviewed against its evidence),
every listed FAIL must still be printed, and every FAIL must carry evidence lines.

  installed_verdicts_test.py LLP_CHECK GOLDEN_TSV [JSON_OUT] [--LLP-CHECK-OPTION...]
Options starting with "--" go to llp-check (e.g. --driver=lavapipe's manifest: the same FAILs must
come out through a real driver). Exit 0 when the FAILs match, 1 otherwise. Reads the host's
installed layers on purpose."""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    opts = [a for a in sys.argv[3:] if a.startswith("--")]
    rest = [a for a in sys.argv[3:] if not a.startswith("--")]
    llp, golden = sys.argv[1], sys.argv[2]
    out = rest[0] if rest else os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "installed.json")
    want = {}
    with open(golden, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            layer, policy, review = line.rstrip("\n").split("\t", 2)
            want[(layer, policy)] = review
    # VK_LAYER_PATH and friends unset: the default search, as a user runs it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("VK_")}
    # A user's session has a HOME; Bazel's test environment may not, and vkBasalt 0.3.2 ends the
    # process (a std::string built from getenv("HOME") == NULL) without one.
    env.setdefault("HOME", os.environ.get("TEST_TMPDIR", "/tmp"))
    p = subprocess.run([llp, "--installed", "--format=json", "--output=" + out] + opts, env=env,
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print("installed_verdicts: FAIL: llp-check exited %d\n%s" % (p.returncode, p.stderr[-4000:]))
        return 1
    with open(out, encoding="utf-8") as fh:
        report = json.load(fh)
    got = {}
    bad = 0
    for m in report["manifests"]:
        layer = ",".join(m["layers"]) or m["manifest"]
        for r in m["results"]:
            if r["verdict"] != "fail":
                continue
            got[(layer, r["id"])] = r
            if not r.get("evidence"):
                print("installed_verdicts: FAIL: %s %s is a FAIL without evidence: %s" % (layer, r["id"], r["reason"]))
                bad += 1
    for key in sorted(set(got) - set(want)):
        r = got[key]
        print("installed_verdicts: FAIL: new FAIL %s %s (%s): %s" % (key[0], key[1], r["check"], r["reason"]))
        for e in r["evidence"][:10]:
            print("    " + e)
        bad += 1
    for key in sorted(set(want) - set(got)):
        print("installed_verdicts: FAIL: %s %s is listed as a FAIL but llp-check no longer prints it: "
              "review it and remove its row" % key)
        bad += 1
    print("installed_verdicts: %d layer manifest(s), %d FAIL(s) printed, %d listed, %d mismatch(es)" % (
        len(report["manifests"]), len(got), len(want), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
