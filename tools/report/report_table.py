"""report_table: the per-policy verdict table of report.py (standard-library Python 3 only): one
column per loader, one cell per policy and column (tests, passed, failed, skipped, deviation, verdict),
the summaries and the lists of failing, deviating and unknown tests."""

import re

from report_results import VERDICTS


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


