#!/usr/bin/env python3
"""A stand-in for `bazel` in run_report_test: what run_report.py asks of bazel, done directly.

  fake_bazel.py [--output_base=X] info bazel-bin|bazel-testlogs
  fake_bazel.py [--output_base=X] test [--test_tag_filters=A,-B] [--test_env=K[=V]]...
                [--build_event_json_file=F] [other options] -- PATTERN...

$FAKE_BAZEL_ROOT holds bazel-bin/ and bazel-testlogs/. $FAKE_BAZEL_TARGETS lists the test targets,
';'-separated "LABEL|TAGS|KIND|WHAT|ENV": KIND "gtest" runs the binary WHAT (a real googletest
binary, e.g. a conformance test from the runfiles) with ENV (K=V,K=V: the target's env attribute),
then --test_env on top, a fresh TEST_TMPDIR and GTEST_OUTPUT=xml:...; KIND "xml" copies the canned
test.xml WHAT. A pattern //a/... matches every label under //a. Writes test.xml, test.log and the
build events (targetConfigured with tags, testResult with outputs) Bazel writes; exit 0, or 3 when
a test failed, like bazel. Every invocation is appended to $FAKE_BAZEL_ROOT/calls.txt.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main(argv):
    root = os.environ["FAKE_BAZEL_ROOT"]
    with open(os.path.join(root, "calls.txt"), "a") as f:
        f.write(" ".join(argv) + "\n")
    args = [a for a in argv if not a.startswith("--output_base=")]
    if args[0] == "info":
        print(os.path.join(root, args[1]))
        return 0
    assert args[0] == "test", args
    rest = args[1:]
    patterns = rest[rest.index("--") + 1:]
    flags = rest[:rest.index("--")]
    tag_filters, test_env, bep = [], {}, None
    for f in flags:
        if f.startswith("--test_tag_filters="):
            tag_filters = [t for t in f.split("=", 1)[1].split(",") if t]
        elif f.startswith("--test_env="):
            k, sep, v = f.split("=", 1)[1].partition("=")
            if sep:
                test_env[k] = v
            elif k in os.environ:
                test_env[k] = os.environ[k]
        elif f.startswith("--build_event_json_file="):
            bep = f.split("=", 1)[1]
    targets = []
    for spec in filter(None, os.environ["FAKE_BAZEL_TARGETS"].split(";")):
        label, tags, kind, what, env = spec.split("|")
        tags = [t for t in tags.split(",") if t]
        if not any(label == p or (p.endswith("/...") and (label.startswith(p[:-4] + ":") or label.startswith(p[:-3])))
                   for p in patterns):
            continue
        wanted = [t for t in tag_filters if not t.startswith("-")]
        unwanted = [t[1:] for t in tag_filters if t.startswith("-")]
        if (wanted and not set(wanted) & set(tags)) or set(unwanted) & set(tags):
            continue
        targets.append((label, tags, kind, what, dict(kv.split("=", 1) for kv in env.split(",") if kv)))
    if not targets:
        return 4
    events = []
    failed = False
    for label, tags, kind, what, env in targets:
        events.append({"id": {"targetConfigured": {"label": label}},
                       "configured": {"targetKind": "cc_test rule", "testSize": "SMALL", "tag": tags}})
        out = os.path.join(root, "bazel-testlogs", label.lstrip("/").replace(":", "/"))
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        xml, log = os.path.join(out, "test.xml"), os.path.join(out, "test.log")
        if kind == "xml":
            shutil.copyfile(what, xml)
            with open(log, "w") as f:
                f.write("canned\n")
            rc = 0
        else:
            child = dict(os.environ)
            for k in ("VKT_LOADER", "VKT_LOADER_NAME", "VKT_DEVIATIONS"):
                child.pop(k, None)
            child.update(env)
            child.update(test_env)
            child["TEST_TMPDIR"] = tempfile.mkdtemp(dir=root)
            child["GTEST_OUTPUT"] = "xml:" + xml
            with open(log, "w") as f:
                rc = subprocess.run([what], env=child, stdout=f, stderr=subprocess.STDOUT).returncode
            if not os.path.exists(xml):  # crashed before writing: Bazel writes its own test.xml
                with open(xml, "w") as f:
                    f.write('<?xml version="1.0"?><testsuites><testsuite name="%s" tests="1" failures="1">'
                            '<testcase name="%s"><failure message="exited with error code %d"/></testcase>'
                            "</testsuite></testsuites>\n" % (label, label, rc))
        failed = failed or rc != 0
        events.append({"id": {"testResult": {"label": label, "run": 1, "shard": 0, "attempt": 1}},
                       "testResult": {"status": "FAILED" if rc else "PASSED", "testAttemptDurationMillis": "5",
                                      "testActionOutput": [{"name": "test.log", "uri": "file://" + log},
                                                           {"name": "test.xml", "uri": "file://" + xml}]}})
    if bep:
        with open(bep, "w") as f:
            f.writelines(json.dumps(e) + "\n" for e in events)
    print("Executed %d out of %d tests" % (len(targets), len(targets)))
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
