"""report_render: the outputs of report.py (standard-library Python 3 only): the table as text,
Markdown, HTML and JUnit, the JSON report and its comparison with a --baseline, and the time per
area (--durations)."""

import html
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET

from report_results import _SHARD
from report_table import (_short, _unknown_for, deviating_tests, failing_tests, integrity_line, summary_counts,
                          summary_line, test_outcomes)


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


