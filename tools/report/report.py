#!/usr/bin/env python3
"""Maps Bazel/googletest results to policies and prints the per-policy verdict table.

Reads every test.xml under each results directory (normally bazel-testlogs). Test cases carry
properties recorded by VKT_POLICY (conformance/framework/policy.cc) through RecordProperty:
"policies" (the IDs the case proves), "loader" (the loader under test: one results directory holds
the <test>_ours and <test>_khronos targets side by side), and "deviation" (the case is listed in
conformance/deviations/<loader>.tsv and its failures were turned into an expected deviation).
googletest >= 1.11 writes properties as <properties><property name= value=/></properties> children
of <testcase>; older versions wrote them as attributes of <testcase>. Both are read.

Columns: one per loader. The column of a case is its "loader" property, or the --results label
when it has none; with several --results directories a loader column is named LABEL/LOADER unless
the two are equal.

Per policy and column: tests (cases citing it), passed, failed, skipped, deviation, and a verdict:
  FAIL        at least one citing test failed (a failure is never excused by a deviation property)
  PASS        no failure and at least one citing test passed
  DEVIATION   only known deviations (and skips): the loader contradicts the policy on purpose/knowingly
  SKIPPED     citing tests exist but all were skipped
  UNTESTABLE  no results, and the table gives an untestable_reason
  REMOVED     no results, and the policy is withdrawn
  NO TEST     no result cites it

Exit status: 1 if any policy is FAIL in any results directory, a test target failed without
per-test results (crash, timeout, non-gtest test), or a result cites an ID the table does not know;
2 on usage errors or a malformed table; else 0.

Usage:
  report.py [--policies TSV] [--results [LABEL=]DIR]... [--markdown FILE] [--html FILE]
            [--junit FILE] [--text FILE] [--bep BUILD_EVENTS.json] [--quiet]
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policies as policy_table  # noqa: E402

# This module is the command line (run) and the loader information it records; the work is in
# report_results.py (reading the test results), report_table.py (the verdict table) and
# report_render.py (text, Markdown, HTML, JUnit, JSON, --baseline, --durations). Every name of
# those modules is also reachable as report.X (the tests use it).
from report_results import *  # noqa: E402,F401,F403
from report_table import *  # noqa: E402,F401,F403
from report_table import _short, _unknown_for  # noqa: E402
from report_render import *  # noqa: E402,F401,F403
from report_render import _COLOURS  # noqa: E402,F401


def default_policies_path():
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "conformance", "policies", "policies.tsv"),
                      os.path.join(os.getcwd(), "conformance", "policies", "policies.tsv")):
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    return "conformance/policies/policies.tsv"


def _write(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


_VERSION_PROBE = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1], mode=getattr(ctypes, "RTLD_LOCAL", 0))
fn = getattr(lib, "vkEnumerateInstanceVersion", None)
if fn is None:
    print("1.0 (no vkEnumerateInstanceVersion)")
    sys.exit(0)
v = ctypes.c_uint32(0)
r = fn(ctypes.byref(v))
v = v.value
print("%d.%d.%d" % ((v >> 22) & 0x7F, (v >> 12) & 0x3FF, v & 0xFFF) if r == 0 else "error %d" % r)
"""


def loader_info(name, path, deviations=""):
    """{name, path, version, sha256, deviations}: the version is what the loader's
    vkEnumerateInstanceVersion reports, asked in a child process (a loader that crashes on load
    says so here instead of taking the report down)."""
    info = {"name": name, "path": path, "deviations": deviations, "sha256": "", "version": ""}
    try:
        import hashlib
        with open(path, "rb") as f:
            info["sha256"] = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        info["version"] = "unreadable: %s" % e.strerror
        return info
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VK_")}
        p = subprocess.run([sys.executable, "-c", _VERSION_PROBE, os.path.abspath(path)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, universal_newlines=True)
        if p.returncode < 0:
            info["version"] = "crashed on load (signal %d)" % -p.returncode
        elif p.returncode != 0:
            last = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
            info["version"] = "cannot load: %s" % _short(last, 120)
        else:
            info["version"] = p.stdout.strip()
    except subprocess.TimeoutExpired:
        info["version"] = "hangs on load (30 s)"
    return info


def _git_commit(tree):
    try:
        head = subprocess.run(["git", "-C", tree, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True, timeout=20)
        if head.returncode != 0:
            return ""
        dirty = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--untracked-files=no"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True, timeout=60)
        return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return ""


def run(argv, out=sys.stdout):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", default=None, help="policy table (default: conformance/policies/policies.tsv)")
    ap.add_argument("--results", action="append", default=[], metavar="[LABEL=]DIR",
                    help="results directory, repeatable (default: ours=bazel-testlogs)")
    ap.add_argument("--shared-results", action="append", default=[], metavar="[LABEL=]DIR",
                    help="results of loader-independent tests (ldp-check): their cases count in every column")
    ap.add_argument("--bep", metavar="FILE",
                    help="only the test.xml files of the invocation that wrote this --build_event_json_file "
                         "(bazel-testlogs keeps results of earlier runs); needs exactly one --results. Its "
                         "targets without a vkt-loader-* tag are loader-independent (counted in every column)")
    ap.add_argument("--markdown", metavar="FILE")
    ap.add_argument("--html", metavar="FILE")
    ap.add_argument("--junit", metavar="FILE")
    ap.add_argument("--text", metavar="FILE", help="also write the text table to FILE")
    ap.add_argument("--json", metavar="FILE", help="machine-readable report (verdicts and per-test outcomes), "
                    "the input of a later --baseline")
    ap.add_argument("--baseline", metavar="FILE", help="an earlier --json report: list newly failing tests and "
                    "policies, then newly passing ones; exit status 1 on any regression (and only then)")
    ap.add_argument("--loader-info", action="append", default=[], metavar="NAME=PATH[=DEVIATIONS]",
                    help="name a loader in the report's heading: its path, the version it reports, its sha256")
    ap.add_argument("--title", default="")
    ap.add_argument("--commit", default=None, help="suite commit (default: git of the current directory)")
    ap.add_argument("--date", default=None, help="report date (default: now, UTC)")
    ap.add_argument("--no-copy-logs", action="store_true",
                    help="do not copy failing tests' logs next to the HTML/Markdown report")
    ap.add_argument("--quiet", action="store_true", help="print only the summary lines")
    ap.add_argument("--durations", action="append", default=[], metavar="LABEL=FILE",
                    help="per-target durations (durations.py output) to report as time per area; repeatable")
    args = ap.parse_args(argv)

    try:
        rows, _ = policy_table.load(args.policies or default_policies_path())
    except (policy_table.TableError, OSError) as e:
        print("report: %s" % e, file=sys.stderr)
        return 2

    specs = args.results or ([] if args.shared_results else ["ours=bazel-testlogs"])
    only = None
    shared_targets = None
    if args.bep:
        if len(specs) != 1:
            print("report: --bep needs exactly one --results", file=sys.stderr)
            return 2
        try:
            only = bep_test_xmls(args.bep)
            shared_targets = bep_shared_targets(args.bep)
        except OSError as e:
            print("report: %s" % e, file=sys.stderr)
            return 2
    results = []
    for spec, shared in [(s, False) for s in specs] + [(s, True) for s in args.shared_results]:
        label, sep, root = spec.partition("=")
        if not sep:
            label, root = os.path.basename(os.path.normpath(spec)) or spec, spec
        if not os.path.isdir(root):
            print("report: results directory %s does not exist" % root, file=sys.stderr)
            return 2
        if label in [r.label for r in results]:
            print("report: results label %s given twice" % label, file=sys.stderr)
            return 2
        res = read_results(label, root, None if shared else only, shared_targets, all_shared=shared)
        res.shared_only = shared
        results.append(res)

    baseline = None
    if args.baseline:
        try:
            baseline = load_baseline(args.baseline)
        except BaselineError as e:
            print("report: %s" % e, file=sys.stderr)
            return 2

    columns = make_columns(results)
    table, unknown = tabulate(rows, columns)
    meta = Meta(title=args.title,
                commit=args.commit if args.commit is not None else _git_commit(os.getcwd()),
                date=args.date if args.date is not None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    for spec in args.loader_info:
        parts = spec.split("=", 2)
        if len(parts) < 2:
            print("report: --loader-info wants NAME=PATH[=DEVIATIONS], not %s" % spec, file=sys.stderr)
            return 2
        meta.loaders.append(loader_info(parts[0], parts[1], parts[2] if len(parts) > 2 else ""))
    if baseline is not None:
        try:
            meta.regressions = compare_baseline(rows, columns, table, baseline)
        except BaselineError as e:
            print("report: %s" % e, file=sys.stderr)
            return 2

    text = render_text(rows, results, columns, table, unknown, meta)
    if args.quiet:
        if meta.regressions is not None:
            out.write("\n".join(render_regressions_text(meta.regressions)) + "\n")
        for res in results:
            print(integrity_line(res, len(_unknown_for(res, columns, unknown))), file=out)
        for col in columns:
            print(summary_line(col, rows, table[col.label]), file=out)
    else:
        out.write(text)
    timing = load_durations(args.durations)
    if timing:
        text += render_durations_text(timing)
        if not args.quiet:
            out.write(render_durations_text(timing))
    if args.text:
        _write(args.text, text)
    for path in (args.html, args.markdown):
        if path and not args.no_copy_logs:
            meta.logs = copy_logs(results, columns, os.path.dirname(os.path.abspath(path)))
            break
    if args.markdown:
        _write(args.markdown, render_markdown(rows, results, columns, table, unknown, meta) + render_durations_md(timing))
    if args.html:
        page = render_html(rows, results, columns, table, unknown, meta)
        if timing:
            page = page.replace("</body></html>", render_durations_html(timing) + "</body></html>")
        _write(args.html, page)
    if args.junit:
        _write(args.junit, render_junit(rows, results, columns, table, unknown))
    if args.json:
        _write(args.json, to_json(rows, results, columns, table, meta))

    if meta.regressions is not None:
        return 1 if regression_count(meta.regressions) else 0
    bad = any(c.verdict == "FAIL" for col in columns for c in table[col.label].values())
    bad = bad or any(res.unattributed_failures for res in results)
    bad = bad or any(unknown[col.label] for col in columns)
    return 1 if bad else 0



if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
