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
import shutil
import subprocess
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policies as policy_table  # noqa: E402

VERDICTS = ["FAIL", "PASS", "DEVIATION", "SKIPPED", "UNTESTABLE", "REMOVED", "NO TEST"]


class Case:
    __slots__ = ("target", "name", "outcome", "policies", "deviation", "message", "loader", "xml", "shared")

    def __init__(self, target, name, outcome, policies, deviation, message, loader="", xml="", shared=False):
        self.loader = loader
        self.xml = xml  # the test.xml it came from (its test.log sits beside it)
        self.shared = shared  # a loader-independent target (no vkt-loader-* tag): counts in every column
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
        self.unattributed_xml = {}  # target -> test.xml path of those failures (for the log link)
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


def bep_shared_targets(path):
    """Test targets of one invocation that do not run per loader (no vkt-loader-* tag), as the
    testlogs-relative paths read_results names targets by (//a/b:c -> a/b/c): ldp-check and other
    loader-independent tests. Their cases count in every loader column, in //:check as in //:report.
    """
    shared = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            label = ((event.get("id") or {}).get("targetConfigured") or {}).get("label")
            configured = event.get("configured")
            if not label or not configured or "testSize" not in configured:
                continue
            if not any(t.startswith("vkt-loader-") for t in configured.get("tag", [])):
                shared.add(label.lstrip("/").replace(":", "/"))
    return shared


def read_results(label, root, only=None, shared_targets=None, all_shared=False):
    """Reads root/**/test.xml; with `only` (a set of real paths), just those files. Cases of targets
    in `shared_targets` (or all, with all_shared) are marked loader-independent."""
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
                shared = all_shared or (shared_targets is not None and target in shared_targets)
                res.cases.append(Case(target, name, outcome, sorted(set(ids)), deviation, message, loader,
                                      path, shared))
            elif outcome == "failed":
                failed_cases.append((name, message))
        for name, message in failed_cases:
            # Bazel's own XML (crash, timeout, non-gtest test) names the single case after the target.
            shown = message if (not name or name == target) else "%s: %s" % (name, message)
            res.unattributed_failures.append((target, shown))
            res.unattributed_xml.setdefault(target, path)
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
    shared = []
    for res in results:
        for case in res.cases:
            if case.shared:
                shared.append((res, case))
                continue
            loader = case.loader or res.label
            if len(results) == 1 or loader == res.label:
                label = loader
            else:
                label = "%s/%s" % (res.label, loader)
            if label not in by_label:
                by_label[label] = Column(label, res)
                columns.append(by_label[label])
            by_label[label].cases.append(case)
        if not any(c.results is res for c in columns) and not getattr(res, "shared_only", False):
            by_label[res.label] = Column(res.label, res)  # no policy results at all: still one column
            columns.append(by_label[res.label])
    if shared and not columns:
        res, case = shared[0]
        label = case.loader or res.label
        by_label[label] = Column(label, res)
        columns.append(by_label[label])
    for col in columns:
        col.cases.extend(case for _, case in shared)
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


def integrity_line(res, unknown_count, show_root=True):
    return "results [%s]%s: %d test.xml file(s), %d failure(s) outside any policy (crash/timeout/uncited test), %d unknown ID(s)" % (
        res.label, (" " + res.root) if show_root else "", res.files, len(res.unattributed_failures), unknown_count)


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


def area_of(target):
    """conformance/loader/x_test_khronos -> conformance/loader/x_test: one test, whichever loader ran it."""
    return re.sub(r"_(ours|khronos)$", "", target)


def failing_tests(col):
    """Failing cases of a column, one entry per test (not per policy): (case, policies)."""
    seen = {}
    for case in col.cases:
        if case.outcome == "failed":
            key = (case.target, case.name)
            if key not in seen:
                seen[key] = case
    return sorted(seen.values(), key=lambda c: (c.target, c.name))


def deviating_tests(col):
    """Cases whose failures were a listed, expected deviation: (case, reason from the deviations file)."""
    return sorted((c for c in col.cases if c.deviation and c.outcome != "failed"), key=lambda c: (c.target, c.name))


def test_outcomes(col, res_list):
    """{test key: outcome} for the JSON report and --baseline: key 'area Suite.Name' (area: the
    target without its loader suffix, so ours and khronos runs compare); outcome passed, failed,
    skipped or deviation. A target that failed without per-test results is one key, 'area'."""
    out = {}
    for c in col.cases:
        key = "%s %s" % (area_of(c.target), c.name)
        outcome = "deviation" if (c.deviation and c.outcome != "failed") else c.outcome
        if out.get(key) != "failed":
            out[key] = outcome
    for res in res_list:
        for target, _ in res.unattributed_failures:
            out[area_of(target)] = "failed"
    return out


def render_text(rows, results, columns, table, unknown, meta=None):
    lines = []
    if meta is not None and meta.regressions is not None:
        lines += render_regressions_text(meta.regressions) + [""]
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
        fails = failing_tests(col)
        if fails:
            lines += ["", "failing tests [%s] (%d):" % (col.label, len(fails))]
            lines.extend("  %s (%s) [%s]: %s" % (c.name, c.target, " ".join(c.policies), c.message) for c in fails)
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


def _anchor(*parts):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join(parts))


class Meta:
    """What a triage report says besides the verdicts: loaders, suite commit, date, baseline diff,
    and the copied logs of failing tests (relative links from the report directory)."""

    def __init__(self, title="", commit="", date="", loaders=None, regressions=None):
        self.title = title
        self.commit = commit
        self.date = date
        self.loaders = loaders or []  # [{"name", "path", "version", "sha256", "deviations"}]
        self.regressions = regressions  # None, or the compare_baseline() result
        self.logs = {}  # (results label, target) -> relative path of the copied test.log

    def heading(self, columns):
        return self.title or "Loader conformance: " + " vs ".join(c.label for c in columns)


def copy_logs(results, columns, report_dir):
    """Copies the test.log beside each failing target's test.xml into REPORT_DIR/logs/<label>/<target>/
    (shards as shard_N.log), so the report's links outlive bazel-testlogs and temporary folders."""
    links = {}
    wanted = {}
    for col in columns:
        for c in col.cases:
            if c.outcome == "failed" and c.xml:
                wanted.setdefault((col.results.label, c.target), set()).add(c.xml)
    for res in results:
        for target, _ in res.unattributed_failures:
            if target in res.unattributed_xml:
                wanted.setdefault((res.label, target), set()).add(res.unattributed_xml[target])
    for (label, target), xmls in sorted(wanted.items()):
        for xml in sorted(xmls):
            log = os.path.join(os.path.dirname(xml), "test.log")
            if not os.path.isfile(log):
                continue
            shard = os.path.basename(os.path.dirname(xml))
            name = (shard + ".log") if _SHARD.match(shard) else "test.log"
            rel = os.path.join("logs", re.sub(r"[^A-Za-z0-9_.-]", "_", label), target, name)
            os.makedirs(os.path.join(report_dir, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(log, os.path.join(report_dir, rel))
            links.setdefault((label, target), rel)
    return links


def render_markdown(rows, results, columns, table, unknown, meta=None):
    meta = meta or Meta()
    out = ["# " + _md(meta.heading(columns)), ""]
    out += _meta_lines_md(meta)
    if meta.regressions is not None:
        out += render_regressions_md(meta.regressions)
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
        fails = failing_tests(col)
        if fails:
            out += ["", "## Failing tests (%s): %d" % (col.label, len(fails)), ""]
            for c in fails:
                log = meta.logs.get((col.results.label, c.target))
                where = "[`%s`](%s)" % (c.target, log) if log else "`%s`" % c.target
                out.append("- `%s` (%s; %s): %s" % (c.name, where, ", ".join("`%s`" % i for i in c.policies), _md(c.message)))
    for col in columns:
        devs = deviating_tests(col)
        if devs:
            out += ["", "## Deviations (%s): %d tests" % (col.label, len(devs)), "",
                    "Listed in the loader's deviations file; the reason is the file's.", "",
                    "| test | target | policies | rule: reason |", "|---|---|---|---|"]
            out += ["| `%s` | `%s` | %s | %s |" % (c.name, c.target, " ".join(c.policies), _md(c.deviation)) for c in devs]
    for res in results:
        if res.unattributed_failures:
            out += ["", "## Targets failed without per-test policy results (%s)" % res.label, ""]
            for t, m in res.unattributed_failures:
                log = meta.logs.get((res.label, t))
                where = "[`%s`](%s)" % (t, log) if log else "`%s`" % t
                out.append("- %s: %s" % (where, _md(_short(m, 200))))
        unk = _unknown_for(res, columns, unknown)
        if unk:
            out += ["", "## Unknown IDs in results (%s)" % res.label, ""]
            out += ["- `%s`: %s" % (pid, _md(", ".join(v))) for pid, v in sorted(unk.items())]
    out += ["", "## Summary", ""]
    out += ["- " + _md(summary_line(col, rows, table[col.label])) for col in columns]
    out += ["- " + _md(integrity_line(res, len(_unknown_for(res, columns, unknown)), show_root=False)) for res in results]
    return "\n".join(out) + "\n"


def _meta_lines_md(meta):
    out = []
    if meta.commit or meta.date:
        out += ["Suite commit `%s`, %s." % (meta.commit or "unknown", meta.date or "date unknown"), ""]
    if meta.loaders:
        out += ["| loader | path | version it reports | sha256 | deviations file |", "|---|---|---|---|---|"]
        for l in meta.loaders:
            out.append("| %s | `%s` | %s | `%s` | %s |" % (
                _md(l.get("name", "")), _md(l.get("path", "")), _md(l.get("version", "")),
                l.get("sha256", "")[:16], _md(l.get("deviations", "")) or "none"))
        out.append("")
    return out


_COLOURS = {
    "PASS": "#2e7d32",
    "FAIL": "#c62828",
    "DEVIATION": "#ef6c00",
    "SKIPPED": "#9e9e9e",
    "UNTESTABLE": "#9e9e9e",
    "REMOVED": "#bdbdbd",
    "NO TEST": "#9e9e9e",
}


def render_html(rows, results, columns, table, unknown, meta=None):
    meta = meta or Meta()
    e = html.escape
    heading = meta.heading(columns)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>%s</title><style>' % e(heading),
        "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}",
        "th,td{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top}",
        "th{background:#eee;position:sticky;top:0}td.v{text-align:center;white-space:nowrap}",
        "td.v a{color:#fff;text-decoration:none;display:block}",
        "td.id{font-family:monospace;white-space:nowrap}small{opacity:.85}.reg{color:#c62828}.fix{color:#2e7d32}",
        "</style></head><body>",
        "<h1>%s</h1>" % e(heading),
    ]
    if meta.commit or meta.date:
        out.append("<p>Suite commit <code>%s</code>, %s.</p>" % (e(meta.commit or "unknown"), e(meta.date or "date unknown")))
    if meta.loaders:
        out.append('<table id="loaders"><thead><tr><th>loader</th><th>path</th><th>version it reports</th>'
                   "<th>sha256</th><th>deviations file</th></tr></thead><tbody>")
        for l in meta.loaders:
            out.append("<tr><td>%s</td><td><code>%s</code></td><td>%s</td><td><code>%s</code></td><td>%s</td></tr>" % (
                e(l.get("name", "")), e(l.get("path", "")), e(l.get("version", "")), e(l.get("sha256", "")[:16]),
                e(l.get("deviations", "") or "none")))
        out.append("</tbody></table>")
    if meta.regressions is not None:
        out += render_regressions_html(meta.regressions)
    out.append("<ul>")
    for col in columns:
        out.append("<li>%s</li>" % e(summary_line(col, rows, table[col.label])))
    for res in results:
        out.append("<li>%s</li>" % e(integrity_line(res, len(_unknown_for(res, columns, unknown)), show_root=False)))
    out.append("</ul>")
    out.append('<table id="policies"><thead><tr><th>ID</th><th>kind</th><th>summary</th>')
    out += ["<th>%s</th>" % e(col.label) for col in columns]
    out.append("</tr></thead><tbody>")
    for p in rows:
        out.append('<tr class="policy"><td class="id">%s</td><td>%s</td><td>%s</td>' % (e(p.id), e(p.kind), e(p.summary)))
        for col in columns:
            c = table[col.label][p.id]
            tip = "%d test(s): %d passed, %d failed, %d skipped, %d deviation" % (
                c.tests, c.passed, c.failed, c.skipped, c.deviation)
            if c.verdict == "UNTESTABLE":
                tip = p.untestable_reason
            label = "%s<br><small>%d/%d/%d/%d</small>" % (e(c.verdict), c.passed, c.failed, c.skipped, c.deviation)
            if c.tests:
                label = '<a href="#%s">%s</a>' % (_anchor("t", col.label, p.id), label)
            out.append('<td class="v" style="background:%s;color:#fff" title="%s">%s</td>' % (
                _COLOURS[c.verdict], e(tip), label))
        out.append("</tr>")
    out.append("</tbody></table>")
    out.append("<p><small>Cells: verdict, then passed/failed/skipped/deviation test counts; "
               "a cell links to the tests behind it.</small></p>")
    for col in columns:
        fails = failing_tests(col)
        if fails:
            out.append("<h2>Failing tests (%s): %d</h2><ul>" % (e(col.label), len(fails)))
            for c in fails:
                log = meta.logs.get((col.results.label, c.target))
                where = '<a href="%s">%s</a>' % (e(log), e(c.target)) if log else e(c.target)
                out.append("<li><code>%s</code> (%s; %s): %s</li>" % (e(c.name), where, e(" ".join(c.policies)), e(c.message)))
            out.append("</ul>")
    for col in columns:
        devs = deviating_tests(col)
        if devs:
            out.append("<h2>Deviations (%s): %d tests</h2><p>Listed in the loader's deviations file; "
                       "the reason is the file's.</p><table><thead><tr><th>test</th><th>target</th>"
                       "<th>policies</th><th>rule: reason</th></tr></thead><tbody>" % (e(col.label), len(devs)))
            out += ["<tr><td><code>%s</code></td><td><code>%s</code></td><td>%s</td><td>%s</td></tr>" % (
                e(c.name), e(c.target), e(" ".join(c.policies)), e(c.deviation)) for c in devs]
            out.append("</tbody></table>")
    for res in results:
        if res.unattributed_failures:
            out.append("<h2>Targets failed without per-test policy results (%s)</h2><ul>" % e(res.label))
            for t, m in res.unattributed_failures:
                log = meta.logs.get((res.label, t))
                where = '<a href="%s"><code>%s</code></a>' % (e(log), e(t)) if log else "<code>%s</code>" % e(t)
                out.append("<li>%s: %s</li>" % (where, e(_short(m, 200))))
            out.append("</ul>")
        unk = _unknown_for(res, columns, unknown)
        if unk:
            out.append("<h2>Unknown IDs in results (%s)</h2><ul>" % e(res.label))
            out += ["<li><code>%s</code>: %s</li>" % (e(pid), e(", ".join(v))) for pid, v in sorted(unk.items())]
            out.append("</ul>")
    out.append("<h2>Tests per policy</h2>")
    for col in columns:
        by_policy = {}
        for c in col.cases:
            for pid in c.policies:
                by_policy.setdefault(pid, []).append(c)
        for p in rows:
            cases = by_policy.get(p.id)
            if not cases:
                continue
            out.append('<h3 id="%s">%s (%s)</h3><ul>' % (_anchor("t", col.label, p.id), e(p.id), e(col.label)))
            for c in sorted(cases, key=lambda c: (c.target, c.name)):
                outcome = "deviation" if (c.deviation and c.outcome != "failed") else c.outcome
                out.append("<li>%s <code>%s</code> <small>%s</small></li>" % (e(outcome), e(c.name), e(c.target)))
            out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ---- JSON report and --baseline -----------------------------------------------------------------

def to_json(rows, results, columns, table, meta):
    doc = {"format": "vkt-conformance-report/1", "title": meta.heading(columns), "commit": meta.commit,
           "date": meta.date, "loaders": meta.loaders, "columns": {}}
    for col in columns:
        cells = table[col.label]
        doc["columns"][col.label] = {
            "summary": summary_counts(rows, cells),
            "policies": {p.id: cells[p.id].verdict for p in rows},
            "tests": test_outcomes(col, [col.results]),
        }
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


class BaselineError(Exception):
    pass


def load_baseline(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BaselineError("baseline %s: %s" % (path, e))
    if not isinstance(doc, dict) or not str(doc.get("format", "")).startswith("vkt-conformance-report/"):
        raise BaselineError("baseline %s: not a report.py --json file" % path)
    return doc


def compare_baseline(rows, columns, table, baseline):
    """Pairs each column with the baseline's column of the same name, else the baseline's only
    column (another loader, or the same loader under another name). Returns a list of
    {column, baseline_column, new_failing_tests, new_failing_policies, new_passing_tests,
    new_passing_policies}; raises BaselineError when a column has no partner."""
    base_cols = baseline.get("columns", {})
    diffs = []
    for col in columns:
        partner = col.label if col.label in base_cols else (next(iter(base_cols)) if len(base_cols) == 1 else None)
        if partner is None:
            raise BaselineError("no baseline column for %s (baseline has %s)" % (col.label, ", ".join(sorted(base_cols)) or "none"))
        base = base_cols[partner]
        now_tests = test_outcomes(col, [col.results])
        was_tests = base.get("tests", {})
        now_pol = {p.id: table[col.label][p.id].verdict for p in rows}
        was_pol = base.get("policies", {})
        diffs.append({
            "column": col.label,
            "baseline_column": partner,
            "new_failing_tests": sorted((k, was_tests.get(k, "absent")) for k, v in now_tests.items()
                                        if v == "failed" and was_tests.get(k) != "failed"),
            "new_failing_policies": sorted((k, was_pol.get(k, "absent")) for k, v in now_pol.items()
                                           if v == "FAIL" and was_pol.get(k) != "FAIL"),
            "new_passing_tests": sorted((k, now_tests.get(k, "absent")) for k, v in was_tests.items()
                                        if v == "failed" and now_tests.get(k, "failed") != "failed"),
            "new_passing_policies": sorted((k, now_pol.get(k, "absent")) for k, v in was_pol.items()
                                           if v == "FAIL" and now_pol.get(k, "FAIL") != "FAIL"),
        })
    return diffs


def regression_count(diffs):
    return sum(len(d["new_failing_tests"]) + len(d["new_failing_policies"]) for d in diffs)


def _diff_sections(d):
    vs = d["column"] if d["column"] == d["baseline_column"] else "%s (baseline: %s)" % (d["column"], d["baseline_column"])
    return [
        ("Newly failing tests [%s]" % vs, d["new_failing_tests"], "was"),
        ("Newly failing policies [%s]" % vs, d["new_failing_policies"], "was"),
        ("Newly passing tests [%s]" % vs, d["new_passing_tests"], "now"),
        ("Newly passing policies [%s]" % vs, d["new_passing_policies"], "now"),
    ]


def render_regressions_text(diffs):
    lines = ["regressions against the baseline: %d" % regression_count(diffs)]
    # Newly failing first (all columns), then newly passing.
    for first in (True, False):
        for d in diffs:
            for i, (title, items, word) in enumerate(_diff_sections(d)):
                if (i < 2) == first and items:
                    lines.append("%s: %d" % (title, len(items)))
                    lines.extend("  %s (%s %s)" % (k, word, v) for k, v in items)
    return lines


def render_regressions_md(diffs):
    out = ["## Against the baseline: %d regression(s)" % regression_count(diffs), ""]
    for first in (True, False):
        for d in diffs:
            for i, (title, items, word) in enumerate(_diff_sections(d)):
                if (i < 2) == first and items:
                    out += ["### %s: %d" % (_md(title), len(items)), ""]
                    out += ["- `%s` (%s %s)" % (k, word, v) for k, v in items]
                    out.append("")
    return out


def render_regressions_html(diffs):
    e = html.escape
    out = ['<h2 id="regressions">Against the baseline: %d regression(s)</h2>' % regression_count(diffs)]
    for first in (True, False):
        for d in diffs:
            for i, (title, items, word) in enumerate(_diff_sections(d)):
                if (i < 2) == first and items:
                    out.append('<h3 class="%s">%s: %d</h3><ul>' % ("reg" if first else "fix", e(title), len(items)))
                    out += ["<li><code>%s</code> (%s %s)</li>" % (e(k), e(word), e(v)) for k, v in items]
                    out.append("</ul>")
    return out


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
