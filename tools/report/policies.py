"""Loading and validating conformance/policies/policies.tsv (Python 3 standard library only).

Shared by policy_coverage.py (the build-time coverage gate) and report.py (the results report).
Thread-safety: plain functions over immutable inputs; no global state.
"""

import re

COLUMNS = [
    "id",
    "kind",
    "summary",
    "source",
    "enforceable_by_loader",
    "android",
    "status",
    "untestable_reason",
    "ldp_check",
]

# Which kind each ID prefix must carry.
KIND_BY_PREFIX = [
    (re.compile(r"^LDP_DRIVER_[1-9][0-9]*$"), "driver-policy"),
    (re.compile(r"^LDP_LOADER_[1-9][0-9]*$"), "loader-policy"),
    (re.compile(r"^LLP_LAYER_[1-9][0-9]*$"), "layer-policy"),
    (re.compile(r"^LLP_LOADER_[1-9][0-9]*$"), "layer-loader-policy"),
    (re.compile(r"^RULE_[A-Z0-9]+(_[A-Z0-9]+)+$"), "rule"),
]

# Anything that looks like an ID (used to validate citations before looking them up).
ID_SYNTAX = re.compile(r"^(LDP_(DRIVER|LOADER)_[0-9]+|LLP_(LAYER|LOADER)_[0-9]+|RULE_[A-Z0-9_]+)$")

ENFORCEABLE = {"yes", "no", "n.a."}
ANDROID = {"yes", "no"}
STATUS = {"live", "removed"}
LDP_CHECK = re.compile(r"^ldp_driver_([0-9]+)_[a-z0-9]+(_[a-z0-9]+)*$")


class Policy:
    """One row of the table. Attribute names are the column names."""

    __slots__ = COLUMNS + ["line"]

    def __init__(self, fields, line):
        for name, value in zip(COLUMNS, fields):
            setattr(self, name, value)
        self.line = line

    @property
    def live(self):
        return self.status == "live"

    @property
    def untestable(self):
        return bool(self.untestable_reason)


class TableError(Exception):
    """The table itself is malformed; .problems lists every problem found."""

    def __init__(self, path, problems):
        super().__init__("%s: %d problem(s)\n  %s" % (path, len(problems), "\n  ".join(problems)))
        self.problems = problems


def expected_kind(policy_id):
    for pattern, kind in KIND_BY_PREFIX:
        if pattern.match(policy_id):
            return kind
    return None


def load(path):
    """Returns an ordered dict-like list of Policy rows keyed by ID: (list, dict). Raises TableError."""
    problems = []
    rows = []
    by_id = {}
    check_names = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].split("\t") != COLUMNS:
        raise TableError(path, ["line 1: header must be exactly: " + " ".join(COLUMNS)])
    for number, text in enumerate(lines[1:], start=2):
        where = "line %d" % number
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.split("\t")
        if len(fields) != len(COLUMNS):
            problems.append("%s: %d columns, expected %d (tab-separated)" % (where, len(fields), len(COLUMNS)))
            continue
        if any(field != field.strip() for field in fields):
            problems.append("%s: a field has leading or trailing spaces" % where)
        p = Policy(fields, number)
        kind = expected_kind(p.id)
        if kind is None:
            problems.append("%s: %r is not a valid ID" % (where, p.id))
        elif p.kind != kind:
            problems.append("%s: %s must have kind %r, not %r" % (where, p.id, kind, p.kind))
        if p.id in by_id:
            problems.append("%s: duplicate ID %s (first on line %d)" % (where, p.id, by_id[p.id].line))
            continue
        if not p.summary:
            problems.append("%s: %s has no summary" % (where, p.id))
        if not p.source:
            problems.append("%s: %s has no source" % (where, p.id))
        if p.enforceable_by_loader not in ENFORCEABLE:
            problems.append("%s: enforceable_by_loader must be one of %s" % (where, sorted(ENFORCEABLE)))
        if p.android not in ANDROID:
            problems.append("%s: android must be one of %s" % (where, sorted(ANDROID)))
        if p.status not in STATUS:
            problems.append("%s: status must be one of %s" % (where, sorted(STATUS)))
        if p.status == "removed" and p.untestable_reason:
            problems.append("%s: a removed policy needs no untestable_reason" % where)
        if kind == "driver-policy" and p.status == "live":
            m = LDP_CHECK.match(p.ldp_check)
            if not m:
                problems.append("%s: live %s needs an ldp_check name like ldp_driver_N_what" % (where, p.id))
            elif "LDP_DRIVER_" + m.group(1) != p.id:
                problems.append("%s: ldp_check %s does not match %s" % (where, p.ldp_check, p.id))
        elif p.ldp_check and kind != "driver-policy":
            problems.append("%s: ldp_check is only for LDP_DRIVER rows" % where)
        if p.ldp_check:
            if p.ldp_check in check_names:
                problems.append("%s: ldp_check %s already used on line %d" % (where, p.ldp_check, check_names[p.ldp_check]))
            check_names[p.ldp_check] = number
        rows.append(p)
        by_id[p.id] = p
    if problems:
        raise TableError(path, problems)
    return rows, by_id


def split_ids(value):
    """Splits a recorded 'policies' property value ("A B", "A,B") into IDs."""
    return [token for token in re.split(r"[\s,]+", value or "") if token]
