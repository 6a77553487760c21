#!/usr/bin/env python3
"""`bazel run //:report -- [OPTIONS] [TARGET_PATTERN...]`: the conformance suite against any number
of named loaders, side by side, and regressions against a saved report (Python 3 stdlib).

  --loader=NAME=PATH      a loader under test, named; repeatable. NAME picks its known deviations
                          (below), never PATH: a byte copy of Debian's loader named khronos gets
                          khronos's deviations wherever it lies.
  --loader=ours           our loader (//loader:libvulkan.so.1 from the runfiles)
  --loader=khronos        Debian's Khronos loader, /usr/lib/x86_64-linux-gnu/libvulkan.so.1
                          (no --loader at all: ours and khronos)
  --deviations=NAME=FILE  known deviations of loader NAME (conformance/deviations/README format:
                          test glob, rule, reason). Built in, by name: conformance/deviations/NAME.tsv
                          (today khronos.tsv and khronos-1.4.360.tsv; ours has none). Other names have
                          none unless given.
  --baseline=FILE         an earlier report.json: list the tests and policies that newly fail, then
                          those newly passing; exit status 1 on any regression, else 0
  --out=DIR               output directory (default <bazel-bin>/report-loaders, or $REPORT_DIR)
  TARGET_PATTERN...       default //conformance/...

Each loader runs the vkt_conformance_test targets (tag vkt-loader-ours) in its own
`bazel test --test_env=VKT_LOADER=PATH --test_env=VKT_LOADER_NAME=NAME [--test_env=VKT_DEVIATIONS=FILE]`;
the loader-independent tests the patterns match (ldp-check: targets without a vkt-loader-* tag) run
once and count in every column, as in `bazel run //:check`. Writes report.{md,html,xml,txt,json},
durations-NAME.tsv, results/NAME/ (test.xml and test.log per target) and logs/ (failing tests'
logs, linked from the report). Environment: BAZEL, CHECK_BAZEL_STARTUP_OPTS,
CHECK_BAZEL_TEST_OPTS (word-split), REPORT_DIR. Exit status: with --baseline, 1 on a regression;
without, 1 when a policy FAILs for some loader; 1 also when a loader's suite did not build or run;
2 on usage errors.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import time

KHRONOS_PATH = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"
BUILTIN = ("ours", "khronos")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
# Variables the nested bazel must not pass through from our own environment (.bazelrc's
# --test_env=VKT_LOADER & co.): each run sets exactly its loader's values.
LOADER_VARS = ("VKT_LOADER", "VKT_LOADER_NAME", "VKT_DEVIATIONS")


class UsageError(Exception):
    pass


class Loader:
    def __init__(self, name, path):
        self.name = name
        self.path = path  # None: ours from the runfiles
        self.deviations = ""  # a file given with --deviations (absolute)

    def test_env(self):
        env = ["--test_env=VKT_LOADER_NAME=" + self.name]
        # ours from the runfiles: an empty VKT_LOADER means "not set" to the framework.
        env.append("--test_env=VKT_LOADER=" + (self.path or ""))
        if self.deviations:
            env.append("--test_env=VKT_DEVIATIONS=" + self.deviations)
        return env


def parse(argv, cwd):
    loaders, devs, targets = [], {}, []
    opts = {"baseline": None, "out": os.environ.get("REPORT_DIR", "")}
    for a in argv:
        if a.startswith("--loader="):
            spec = a[len("--loader="):]
            name, sep, path = spec.partition("=")
            if not sep:
                if spec not in BUILTIN:
                    raise UsageError("--loader=%s: name it, --loader=NAME=PATH (the name picks the known "
                                     "deviations; built in: ours, khronos)" % spec)
                name, path = spec, (KHRONOS_PATH if spec == "khronos" else None)
            else:
                path = os.path.abspath(os.path.join(cwd, path))
                if not os.path.isfile(path):
                    raise UsageError("--loader=%s: no file at %s" % (spec, path))
            if not NAME_RE.match(name):
                raise UsageError("--loader=%s: a name is letters, digits, _ . + -" % spec)
            if name in [l.name for l in loaders]:
                raise UsageError("loader %s named twice" % name)
            loaders.append(Loader(name, path))
        elif a.startswith("--deviations="):
            name, sep, path = a[len("--deviations="):].partition("=")
            if not sep or not name:
                raise UsageError("%s: wants --deviations=NAME=FILE" % a)
            path = os.path.abspath(os.path.join(cwd, path))
            if not os.path.isfile(path):
                raise UsageError("%s: no file at %s" % (a, path))
            devs[name] = path
        elif a.startswith("--baseline="):
            opts["baseline"] = os.path.abspath(os.path.join(cwd, a[len("--baseline="):]))
            if not os.path.isfile(opts["baseline"]):
                raise UsageError("%s: no such file" % a)
        elif a.startswith("--out="):
            opts["out"] = os.path.abspath(os.path.join(cwd, a[len("--out="):]))
        elif a in ("-h", "--help"):
            raise UsageError(None)
        elif a.startswith("--"):
            raise UsageError("unknown option %s" % a)
        else:
            targets.append(a)
    if not loaders:
        loaders = [Loader("ours", None), Loader("khronos", KHRONOS_PATH)]
    for name, path in devs.items():
        match = [l for l in loaders if l.name == name]
        if not match:
            raise UsageError("--deviations=%s=...: no loader of that name" % name)
        match[0].deviations = path
    return loaders, targets or ["//conformance/..."], opts


def main(argv):
    ws = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not ws:
        print("run_report: run me with 'bazel run //:report' (BUILD_WORKSPACE_DIRECTORY is not set)", file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        loaders, targets, opts = parse(argv, os.environ.get("BUILD_WORKING_DIRECTORY", ws))
    except UsageError as e:
        if e.args[0] is None:
            print(__doc__)
            return 0
        print("run_report: %s" % e, file=sys.stderr)
        return 2

    bazel = [os.environ.get("BAZEL", "bazel")]
    out_base = ""
    for p in (os.getcwd(), here, os.path.realpath(sys.argv[0])):
        if "/execroot/" in p:
            out_base = p.split("/execroot/")[0]
            break
    startup = (["--output_base=" + out_base] if out_base else []) + shlex.split(os.environ.get("CHECK_BAZEL_STARTUP_OPTS", ""))
    test_opts = shlex.split(os.environ.get("CHECK_BAZEL_TEST_OPTS", ""))
    env = {k: v for k, v in os.environ.items() if k not in LOADER_VARS}

    def bazel_info(key):
        p = subprocess.run(bazel + startup + ["info", key], cwd=ws, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True)
        return p.stdout.strip()

    bin_dir = bazel_info("bazel-bin")
    out_dir = opts["out"] or os.path.join(bin_dir or "/tmp", "report-loaders")
    os.makedirs(out_dir, exist_ok=True)
    for stale in ("results", "logs"):
        shutil.rmtree(os.path.join(out_dir, stale), ignore_errors=True)

    def bazel_test(tag, what, extra):
        bep = os.path.join(out_dir, "bep-%s.json" % tag)
        log = os.path.join(out_dir, "bazel-%s.log" % tag)
        cmd = bazel + startup + ["test", "--keep_going", "--build_event_json_file=" + bep] + extra + test_opts + ["--"] + targets
        print("report: [%s] %s (log: %s)" % (tag, what, log), flush=True)
        start = time.time()
        with open(log, "w") as f:
            rc = subprocess.run(cmd, cwd=ws, env=env, stdout=f, stderr=subprocess.STDOUT).returncode
        results = os.path.join(out_dir, "results", tag)
        os.makedirs(results, exist_ok=True)
        durations = os.path.join(out_dir, "durations-%s.tsv" % tag)
        with open(durations, "w") as f:
            if os.path.exists(bep):  # none when bazel stopped before the build (usage, no targets)
                subprocess.run([sys.executable, os.path.join(here, "durations.py"), bep, "--copy-xml", results],
                               stdout=f, check=False)
        summary = ""
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("Executed ") or line.startswith("ERROR: "):
                    summary = line.strip()
        print("report: [%s] bazel test exit %d after %ds%s" % (tag, rc, time.time() - start,
                                                               ": " + summary if summary else ""), flush=True)
        return rc, results, durations

    broken = []
    args = []
    for l in loaders:
        rc, results, durations = bazel_test(l.name, "the suite against %s" % (l.path or "//loader:libvulkan.so.1"),
                                            ["--test_tag_filters=vkt-loader-ours"] + l.test_env())
        if rc not in (0, 3):  # 3: some tests failed (their cells show it); else no (complete) results
            broken.append("%s (bazel exit %d)" % (l.name, rc))
        args += ["--results", "%s=%s" % (l.name, results), "--durations", "%s=%s" % (l.name, durations)]
        path = l.path or os.path.join(bin_dir, "loader", "libvulkan.so.1")
        builtin = os.path.join(ws, "conformance", "deviations", l.name + ".tsv")
        dev = l.deviations or (os.path.relpath(builtin, ws) if os.path.isfile(builtin) else "")
        args += ["--loader-info", "%s=%s=%s" % (l.name, path, dev)]
    # Loader-independent tests that cite policies (ldp-check): once, in every column.
    rc, results, _ = bazel_test("shared", "loader-independent tests (ldp-check)",
                                ["--test_tag_filters=-vkt-loader-ours,-vkt-loader-khronos"])
    if rc not in (0, 3, 4):  # 4: the patterns match no such test
        broken.append("loader-independent tests (bazel exit %d)" % rc)
    args += ["--shared-results", "shared=" + results]

    report = [sys.executable, os.path.join(here, "report.py"),
              "--policies", os.path.join(ws, "conformance", "policies", "policies.tsv"),
              "--markdown", os.path.join(out_dir, "report.md"), "--html", os.path.join(out_dir, "report.html"),
              "--junit", os.path.join(out_dir, "report.xml"), "--text", os.path.join(out_dir, "report.txt"),
              "--json", os.path.join(out_dir, "report.json")] + args
    if opts["baseline"]:
        report += ["--baseline", opts["baseline"]]
    report_rc = subprocess.run(report, cwd=ws).returncode
    print("report: written to %s/{report.md,report.html,report.xml,report.txt,report.json}" % out_dir)
    if broken:
        print("report: FAILED: the suite did not build or run for: %s" % ", ".join(broken))
        return 1
    return report_rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
