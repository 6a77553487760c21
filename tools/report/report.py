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
import html
import json
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policies as policy_table  # noqa: E402

VERDICTS = ["FAIL", "PASS", "DEVIATION", "SKIPPED", "UNTESTABLE", "REMOVED", "NO TEST"]


class Case:
    __slots__ = ("target", "name", "outcome", "policies", "deviation", "message", "loader")

    def __init__(self, target, name, outcome, policies, deviation, message, loader=""):
        self.loader = loader
        self.target = target
        self.name = name
        self.outcome = outcome  # "passed" | "failed" | "skipped"
        self.policies = policies
        self.deviation = deviation
        self.message = message


class Results:
    """All test cases found under one results directory."""

    def __init__(self, label, root):
        self.label = label
        self.root = root
        self.cases = []
        self.unattributed_failures = []  # (target, message): failed without per-case policy data
        self.unreadable = []  # (path, error)
        self.files = 0


def _props(testcase):
    props = {}
    for prop in testcase.iter("property"):
        name = prop.get("name")
        if name:
            props.setdefault(name, []).append(prop.get("value", ""))
    for name in ("policies", "deviation", "loader"):
        if testcase.get(name) is not None:  # googletest < 1.11: RecordProperty became an attribute
            props.setdefault(name, []).append(testcase.get(name))
    return props


def _outcome(tc):
    failure = tc.find("failure")
    if failure is None:
        failure = tc.find("error")
    if failure is not None:
        msg = failure.get("message") or (failure.text or "")
        return "failed", _one_line(msg) or "failed"
    skipped = tc.find("skipped")
    if skipped is not None or tc.get("result") in ("skipped", "suppressed") or tc.get("status") == "notrun":
        msg = skipped.get("message", "") if skipped is not None else tc.get("result", "")
        return "skipped", _one_line(msg) or "skipped"
    return "passed", ""


def _one_line(msg, limit=240):
    """googletest messages are 'file:line\nwhat'; keep them readable on one line."""
    text = " ".join(part.strip() for part in (msg or "").strip().splitlines() if part.strip())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_SHARD = re.compile(r"^shard_[0-9]+_of_[0-9]+$")


def _target_of(results_root, xml_dir):
    """bazel-testlogs/pkg/name[/shard_i_of_n]/test.xml -> pkg/name (the Bazel target, with shards merged)."""
    rel = os.path.relpath(xml_dir, results_root)
    if _SHARD.match(os.path.basename(rel)):
        rel = os.path.dirname(rel)
    return rel.replace(os.sep, "/")


def bep_test_xmls(path):
    """Real paths of the test.xml files of one invocation, from `bazel test --build_event_json_file`.

    Each line of that file is one JSON build event; testResult events list the test's outputs
    (test.log, test.xml) as file:// URIs, for tests that ran and for cached ones alike.
    """
    found = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            for output in (event.get("testResult") or {}).get("testActionOutput", []):
                uri = output.get("uri", "")
                if output.get("name") == "test.xml" and uri.startswith("file://"):
                    found.add(os.path.realpath(urllib.parse.unquote(uri[len("file://"):])))
    return found


def read_results(label, root, only=None):
    """Reads root/**/test.xml; with `only` (a set of real paths), just those files."""
    res = Results(label, root)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames.sort()
        if "test.xml" not in filenames:
            continue
        path = os.path.join(dirpath, "test.xml")
        if only is not None and os.path.realpath(path) not in only:
            continue
        target = _target_of(root, dirpath)
        res.files += 1
        try:
            tree = ET.parse(path)
        except (ET.ParseError, OSError) as e:
            res.unreadable.append((path, str(e)))
            res.unattributed_failures.append((target, "unreadable test.xml: %s" % e))
            continue
        failed_cases = []
        for tc in tree.getroot().iter("testcase"):
            outcome, message = _outcome(tc)
            props = _props(tc)
            ids = []
            for value in props.get("policies", []):
                ids.extend(policy_table.split_ids(value))
            deviation = "; ".join(v for v in props.get("deviation", []) if v)
            name = "%s.%s" % (tc.get("classname", ""), tc.get("name", "")) if tc.get("classname") else tc.get("name", "")
            if ids:
                loader = (props.get("loader") or [""])[0].strip()
                res.cases.append(Case(target, name, outcome, sorted(set(ids)), deviation, message, loader))
            elif outcome == "failed":
                failed_cases.append((name, message))
        for name, message in failed_cases:
            # Bazel's own XML (crash, timeout, non-gtest test) names the single case after the target.
            shown = message if (not name or name == target) else "%s: %s" % (name, message)
            res.unattributed_failures.append((target, shown))
    return res


class Column:
    """One loader's results: a column of the report."""

    def __init__(self, label, results):
        self.label = label
        self.results = results
        self.cases = []


def make_columns(results):
    columns = []
    by_label = {}
    for res in results:
        for case in res.cases:
            loader = case.loader or res.label
            if len(results) == 1 or loader == res.label:
                label = loader
            else:
                label = "%s/%s" % (res.label, loader)
            if label not in by_label:
                by_label[label] = Column(label, res)
                columns.append(by_label[label])
            by_label[label].cases.append(case)
        if not any(c.results is res for c in columns):
            by_label[res.label] = Column(res.label, res)  # no policy results at all: still one column
            columns.append(by_label[res.label])
    # "ours" (the reference loader) first, then the others in name order.
    columns.sort(key=lambda c: (c.label.split("/")[-1] != "ours", c.label))
    return columns


class Cell:
    __slots__ = ("tests", "passed", "failed", "skipped", "deviation", "verdict", "failing")

    def __init__(self):
        self.tests = self.passed = self.failed = self.skipped = self.deviation = 0
        self.verdict = "NO TEST"
        self.failing = []


def tabulate(rows, columns):
    """Returns {column label: {id: Cell}} and {column label: {unknown id: [case names]}}."""
    table, unknown = {}, {}
    known = {p.id: p for p in rows}
    for col in columns:
        cells = {p.id: Cell() for p in rows}
        unk = {}
        for case in col.cases:
            for pid in case.policies:
                if pid not in known:
                    unk.setdefault(pid, []).append("%s (%s)" % (case.name, case.target))
                    continue
                c = cells[pid]
                c.tests += 1
                if case.outcome == "failed":
                    c.failed += 1
                    c.failing.append("%s (%s): %s" % (case.name, case.target, case.message))
                elif case.deviation:
                    c.deviation += 1  # failures intercepted as a listed, expected deviation
                elif case.outcome == "skipped":
                    c.skipped += 1
                else:
                    c.passed += 1
        for p in rows:
            c = cells[p.id]
            if c.failed:
                c.verdict = "FAIL"
            elif c.deviation:
                # Any listed deviation shows, even beside passing tests: the loaders differ here.
                c.verdict = "DEVIATION"
            elif c.passed:
                c.verdict = "PASS"
            elif c.skipped:
                c.verdict = "SKIPPED"
            elif not p.live:
                c.verdict = "REMOVED"
            elif p.untestable:
                c.verdict = "UNTESTABLE"
            else:
                c.verdict = "NO TEST"
        table[col.label] = cells
        unknown[col.label] = unk
    return table, unknown


def summary_counts(rows, cells):
    counts = {v: 0 for v in VERDICTS}
    for p in rows:
        counts[cells[p.id].verdict] += 1
    return counts


def summary_line(col, rows, cells):
    counts = summary_counts(rows, cells)
    parts = ["%s %d" % (v, counts[v]) for v in VERDICTS if counts[v] or v in ("PASS", "FAIL", "NO TEST")]
    failing = sum(1 for c in col.cases if c.outcome == "failed")
    return "summary [%s]: %d policies: %s; %d test case(s) citing policies, %d failing" % (
        col.label, len(rows), ", ".join(parts), len(col.cases), failing)


def integrity_line(res, unknown_count):
    return "results [%s] %s: %d test.xml file(s), %d failure(s) outside any policy (crash/timeout/uncited test), %d unknown ID(s)" % (
        res.label, res.root, res.files, len(res.unattributed_failures), unknown_count)


def _short(text, width):
    return text if len(text) <= width else text[: width - 3] + "..."


def _failing(rows, cells):
    return [(p.id, f) for p in rows for f in cells[p.id].failing]


def _unknown_for(res, columns, unknown):
    merged = {}
    for col in columns:
        if col.results is res:
            for pid, where in unknown[col.label].items():
                merged.setdefault(pid, []).extend(where)
    return merged


def render_text(rows, results, columns, table, unknown):
    lines = []
    head = ["ID", "summary"]
    for col in columns:
        head += ["%s tests" % col.label if len(columns) > 1 else "tests", "pass/fail/skip/dev", "verdict"]
    body = []
    for p in rows:
        line = [p.id, _short(p.summary, 56)]
        for col in columns:
            c = table[col.label][p.id]
            line += [str(c.tests), "%d/%d/%d/%d" % (c.passed, c.failed, c.skipped, c.deviation), c.verdict]
        body.append(line)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "  ".join(v.ljust(widths[i]) for i, v in enumerate(r)).rstrip()  # noqa: E731
    lines.append(fmt(head))
    lines.append(fmt(["-" * w for w in widths]))
    lines.extend(fmt(r) for r in body)
    for col in columns:
        fails = _failing(rows, table[col.label])
        if fails:
            lines += ["", "failing tests [%s]:" % col.label]
            lines.extend("  %s  %s" % (pid, f) for pid, f in fails)
    for res in results:
        if res.unattributed_failures:
            lines += ["", "targets that failed without per-test policy results [%s] (crash, timeout, non-gtest test):" % res.label]
            lines.extend("  %s: %s" % (t, _short(m, 160)) for t, m in res.unattributed_failures)
        unk = _unknown_for(res, columns, unknown)
        if unk:
            lines += ["", "results citing IDs not in the policy table [%s]:" % res.label]
            lines.extend("  %s: %s" % (pid, ", ".join(v)) for pid, v in sorted(unk.items()))
    lines.append("")
    for res in results:
        lines.append(integrity_line(res, len(_unknown_for(res, columns, unknown))))
    for col in columns:
        lines.append(summary_line(col, rows, table[col.label]))
    return "\n".join(lines) + "\n"


def _md(text):
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(rows, results, columns, table, unknown):
    out = ["# Policy coverage report", ""]
    for res in results:
        out.append("- " + _md(integrity_line(res, len(_unknown_for(res, columns, unknown)))))
    out.append("")
    out.append("Verdicts: PASS, FAIL, DEVIATION (no failure, but at least one citing test is a known, listed deviation), SKIPPED, UNTESTABLE, REMOVED, NO TEST.")
    out.append("")
    head = ["ID", "summary"]
    for col in columns:
        prefix = col.label + " " if len(columns) > 1 else ""
        head += [prefix + "tests", prefix + "passed", prefix + "failed", prefix + "skipped", prefix + "deviation", prefix + "verdict"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for p in rows:
        line = ["`%s`" % p.id, _md(p.summary)]
        for col in columns:
            c = table[col.label][p.id]
            verdict = "**%s**" % c.verdict if c.verdict == "FAIL" else c.verdict
            line += [str(c.tests), str(c.passed), str(c.failed), str(c.skipped), str(c.deviation), verdict]
        out.append("| " + " | ".join(line) + " |")
    for col in columns:
        fails = _failing(rows, table[col.label])
        if fails:
            out += ["", "## Failing tests (%s)" % col.label, ""]
            out += ["- `%s` %s" % (pid, _md(f)) for pid, f in fails]
    for res in results:
        if res.unattributed_failures:
            out += ["", "## Targets failed without per-test policy results (%s)" % res.label, ""]
            out += ["- `%s`: %s" % (t, _md(_short(m, 200))) for t, m in res.unattributed_failures]
        unk = _unknown_for(res, columns, unknown)
        if unk:
            out += ["", "## Unknown IDs in results (%s)" % res.label, ""]
            out += ["- `%s`: %s" % (pid, _md(", ".join(v))) for pid, v in sorted(unk.items())]
    out += ["", "## Summary", ""]
    out += ["- " + _md(summary_line(col, rows, table[col.label])) for col in columns]
    return "\n".join(out) + "\n"


_COLOURS = {
    "PASS": "#2e7d32",
    "FAIL": "#c62828",
    "DEVIATION": "#ef6c00",
    "SKIPPED": "#9e9e9e",
    "UNTESTABLE": "#9e9e9e",
    "REMOVED": "#bdbdbd",
    "NO TEST": "#9e9e9e",
}


def render_html(rows, results, columns, table, unknown):
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>Policy coverage</title><style>',
        "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}",
        "th,td{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top}",
        "th{background:#eee;position:sticky;top:0}td.v{color:#fff;text-align:center;white-space:nowrap}",
        "td.id{font-family:monospace;white-space:nowrap}small{opacity:.85}",
        "</style></head><body>",
        "<h1>Policy coverage</h1>",
        "<ul>",
    ]
    for res in results:
        out.append("<li>%s</li>" % e(integrity_line(res, len(_unknown_for(res, columns, unknown)))))
    for col in columns:
        out.append("<li>%s</li>" % e(summary_line(col, rows, table[col.label])))
    out.append("</ul>")
    out.append("<table><thead><tr><th>ID</th><th>kind</th><th>summary</th>")
    out += ["<th>%s</th>" % e(col.label) for col in columns]
    out.append("</tr></thead><tbody>")
    for p in rows:
        out.append('<tr><td class="id">%s</td><td>%s</td><td>%s</td>' % (e(p.id), e(p.kind), e(p.summary)))
        for col in columns:
            c = table[col.label][p.id]
            tip = "%d test(s): %d passed, %d failed, %d skipped, %d deviation" % (
                c.tests, c.passed, c.failed, c.skipped, c.deviation)
            if c.failing:
                tip += "\n" + "\n".join(c.failing)
            if c.verdict == "UNTESTABLE":
                tip = p.untestable_reason
            out.append('<td class="v" style="background:%s" title="%s">%s<br><small>%d/%d/%d/%d</small></td>' % (
                _COLOURS[c.verdict], e(tip), e(c.verdict), c.passed, c.failed, c.skipped, c.deviation))
        out.append("</tr>")
    out.append("</tbody></table>")
    out.append("<p><small>Cells: verdict, then passed/failed/skipped/deviation test counts; hover for details.</small></p>")
    for col in columns:
        fails = _failing(rows, table[col.label])
        if fails:
            out.append("<h2>Failing tests (%s)</h2><ul>" % e(col.label))
            out += ["<li><code>%s</code> %s</li>" % (e(pid), e(f)) for pid, f in fails]
            out.append("</ul>")
    for res in results:
        if res.unattributed_failures:
            out.append("<h2>Targets failed without per-test policy results (%s)</h2><ul>" % e(res.label))
            out += ["<li><code>%s</code>: %s</li>" % (e(t), e(_short(m, 200))) for t, m in res.unattributed_failures]
            out.append("</ul>")
        unk = _unknown_for(res, columns, unknown)
        if unk:
            out.append("<h2>Unknown IDs in results (%s)</h2><ul>" % e(res.label))
            out += ["<li><code>%s</code>: %s</li>" % (e(pid), e(", ".join(v))) for pid, v in sorted(unk.items())]
            out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render_junit(rows, results, columns, table, unknown):
    root = ET.Element("testsuites", name="policies")
    for col in columns:
        cells = table[col.label]
        counts = summary_counts(rows, cells)
        suite = ET.SubElement(root, "testsuite", name="policies.%s" % col.label, tests=str(len(rows)),
                              failures=str(counts["FAIL"]), errors="0",
                              skipped=str(len(rows) - counts["FAIL"] - counts["PASS"]))
        for p in rows:
            c = cells[p.id]
            tc = ET.SubElement(suite, "testcase", classname="policies.%s" % col.label, name=p.id)
            props = ET.SubElement(tc, "properties")
            ET.SubElement(props, "property", name="verdict", value=c.verdict)
            ET.SubElement(props, "property", name="counts",
                          value="tests=%d passed=%d failed=%d skipped=%d deviation=%d" % (
                              c.tests, c.passed, c.failed, c.skipped, c.deviation))
            if c.verdict == "FAIL":
                f = ET.SubElement(tc, "failure", message="%d failing test(s)" % c.failed)
                f.text = "\n".join(c.failing)
            elif c.verdict != "PASS":
                ET.SubElement(tc, "skipped", message=p.untestable_reason if c.verdict == "UNTESTABLE" else c.verdict)
    for res in results:
        unk = _unknown_for(res, columns, unknown)
        suite = ET.SubElement(root, "testsuite", name="results.%s" % res.label, tests="1",
                              failures="1" if (res.unattributed_failures or unk) else "0", errors="0")
        tc = ET.SubElement(suite, "testcase", classname="results.%s" % res.label, name="results_integrity")
        if res.unattributed_failures or unk:
            f = ET.SubElement(tc, "failure", message="failures outside policies or unknown IDs")
            f.text = "\n".join(["%s: %s" % x for x in res.unattributed_failures] +
                               ["unknown ID %s" % k for k in sorted(unk)])
    return ET.tostring(root, encoding="unicode") + "\n"


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


def run(argv, out=sys.stdout):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", default=None, help="policy table (default: conformance/policies/policies.tsv)")
    ap.add_argument("--results", action="append", default=[], metavar="[LABEL=]DIR",
                    help="results directory, repeatable (default: ours=bazel-testlogs)")
    ap.add_argument("--bep", metavar="FILE",
                    help="only the test.xml files of the invocation that wrote this --build_event_json_file "
                         "(bazel-testlogs keeps results of earlier runs); needs exactly one --results")
    ap.add_argument("--markdown", metavar="FILE")
    ap.add_argument("--html", metavar="FILE")
    ap.add_argument("--junit", metavar="FILE")
    ap.add_argument("--text", metavar="FILE", help="also write the text table to FILE")
    ap.add_argument("--quiet", action="store_true", help="print only the summary lines")
    ap.add_argument("--durations", action="append", default=[], metavar="LABEL=FILE",
                    help="per-target durations (durations.py output) to report as time per area; repeatable")
    args = ap.parse_args(argv)

    try:
        rows, _ = policy_table.load(args.policies or default_policies_path())
    except (policy_table.TableError, OSError) as e:
        print("report: %s" % e, file=sys.stderr)
        return 2

    specs = args.results or ["ours=bazel-testlogs"]
    only = None
    if args.bep:
        if len(specs) != 1:
            print("report: --bep needs exactly one --results", file=sys.stderr)
            return 2
        try:
            only = bep_test_xmls(args.bep)
        except OSError as e:
            print("report: %s" % e, file=sys.stderr)
            return 2
    results = []
    for spec in specs:
        label, sep, root = spec.partition("=")
        if not sep:
            label, root = os.path.basename(os.path.normpath(spec)) or spec, spec
        if not os.path.isdir(root):
            print("report: results directory %s does not exist" % root, file=sys.stderr)
            return 2
        if label in [r.label for r in results]:
            print("report: results label %s given twice" % label, file=sys.stderr)
            return 2
        results.append(read_results(label, root, only))

    columns = make_columns(results)
    table, unknown = tabulate(rows, columns)
    text = render_text(rows, results, columns, table, unknown)
    if args.quiet:
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
    if args.markdown:
        _write(args.markdown, render_markdown(rows, results, columns, table, unknown) + render_durations_md(timing))
    if args.html:
        page = render_html(rows, results, columns, table, unknown)
        if timing:
            page = page.replace("</body></html>", render_durations_html(timing) + "</body></html>")
        _write(args.html, page)
    if args.junit:
        _write(args.junit, render_junit(rows, results, columns, table, unknown))

    bad = any(c.verdict == "FAIL" for col in columns for c in table[col.label].values())
    bad = bad or any(res.unattributed_failures for res in results)
    bad = bad or any(unknown[col.label] for col in columns)
    return 1 if bad else 0


# ---- time per area (--durations, from durations.py) ------------------------------------------------

def load_durations(specs):
    """{area: {label: (wall_ms, sum_ms, shards, status)}} and the labels, in the order given."""
    if not specs:
        return None
    areas, labels = {}, []
    for spec in specs:
        label, _, path = spec.partition("=")
        labels.append(label)
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 6:
                    continue
                areas.setdefault(cols[0], {})[label] = (int(cols[3]), int(cols[4]), int(cols[2]), cols[5])
    return areas, labels


def _secs(ms):
    return "%.1f s" % (ms / 1000.0)


def _duration_rows(timing):
    areas, labels = timing
    rows = []
    for area in sorted(areas):
        cells = []
        for label in labels:
            v = areas[area].get(label)
            cells.append("-" if v is None else "%s (%d shard%s, %s summed)%s" % (
                _secs(v[0]), v[2], "" if v[2] == 1 else "s", _secs(v[1]), "" if v[3] == "PASSED" else " " + v[3]))
        rows.append((area, cells))
    totals = []
    for label in labels:
        totals.append("%s summed over shards" % _secs(sum(areas[a][label][1] for a in areas if label in areas[a])))
    return rows, totals


def render_durations_text(timing):
    if not timing:
        return ""
    rows, totals = _duration_rows(timing)
    out = ["", "Time per area (longest shard; all shards summed):"]
    out += ["  %-55s %s" % (area, " | ".join(cells)) for area, cells in rows]
    out.append("  %-55s %s" % ("total", " | ".join(totals)))
    return "\n".join(out) + "\n"


def render_durations_md(timing):
    if not timing:
        return ""
    rows, totals = _duration_rows(timing)
    labels = timing[1]
    out = ["", "## Time per area", "",
           "Wall time of the longest shard of each test target (the time the area takes when shards run "
           "in parallel), with the shard count and the sum over shards.", "",
           "| area | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    out += ["| `%s` | %s |" % (area, " | ".join(_md(c) for c in cells)) for area, cells in rows]
    out.append("| total | %s |" % " | ".join(totals))
    return "\n".join(out) + "\n"


def render_durations_html(timing):
    if not timing:
        return ""
    e = html.escape
    rows, totals = _duration_rows(timing)
    out = ["<h2>Time per area</h2><table><thead><tr><th>area</th>"]
    out += ["<th>%s</th>" % e(l) for l in timing[1]]
    out.append("</tr></thead><tbody>")
    for area, cells in rows:
        out.append('<tr><td class="id">%s</td>%s</tr>' % (e(area), "".join("<td>%s</td>" % e(c) for c in cells)))
    out.append("<tr><td>total</td>%s</tr></tbody></table>" % "".join("<td>%s</td>" % e(t) for t in totals))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
