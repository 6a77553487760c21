"""report_results: reads Bazel's test results for report.py (standard-library Python 3 only): the
test.xml files under a results directory (or those a build event protocol file names), each case
with the policies it cites, its loader and deviation properties, and the targets that failed
without per-test results."""

import json
import os
import re
import urllib.parse
import xml.etree.ElementTree as ET

import policies as policy_table

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


