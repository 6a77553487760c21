#!/usr/bin/env python3
"""Policy coverage gate: every live policy/rule has a test, and every cited ID exists.

Scans C++ test sources for VKT_POLICY("ID", "ID2", ...) citations and checks them against
conformance/policies/policies.tsv. Fails (exit 1) when:
  * a test cites an ID that is not in the table, or cites it in a form that cannot be checked. A
    citation is a string literal argument of VKT_POLICY; when a file passes a non-literal argument
    (say GetParam().rule in a parameterised test), every string literal in that file that is exactly
    an ID (the parameter table) counts as a citation instead, and it is an error if there is none;
  * a live policy has no citing test, no untestable_reason, and is not listed in the pending file;
  * the pending file is stale or wrong: an ID in it already has a test, is unknown, is removed or
    untestable, is listed twice, or has no reason (so the pending list can only shrink);
  * (with --tree-root) a live loader-side ID (kinds loader-policy, layer-loader-policy, rule) has a
    citing test but no implementing code names it: every such ID must appear, as a whole word, in a
    comment or string of the code that implements it, the non-test sources (*.c, *.h, *.S, *.cc,
    *.txt; not *_test.*, not testdata/) under the implementation roots: loader/ (our loader) and the
    checkers conformance/driver/ (ldp-check) and conformance/layer_check/ (llp-check); --impl-root
    replaces that list.
With --tree-root DIR, DIR/conformance/**/*_test.cc are scanned in addition to SOURCE.

Usage:
  policy_coverage.py --policies policies.tsv [--pending pending.txt] [--strict]
                     [--tree-root DIR [--impl-root DIR]...] [--print-pending] [--prune]
                     [--markdown FILE | --check FILE] SOURCE...
  SOURCE may be @FILE: one path per line.
--markdown FILE writes the page docs/policy-coverage.md; --check FILE exits 1 when FILE is not what
--markdown would write now, naming the command that regenerates it (REGENERATE below);
//tools/report:policy_coverage_doc_test runs it on the committed page.
"""

import argparse
import difflib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policies as policy_table  # noqa: E402  (stdlib-only sibling module)

MACRO = "VKT_POLICY"

# Kinds whose IDs the loader (or a checker) implements, and where that code lives (tree-relative).
IMPL_KINDS = ("loader-policy", "layer-loader-policy", "rule")
IMPL_ROOTS = ("loader", "conformance/driver", "conformance/layer_check")
IMPL_SUFFIXES = (".c", ".h", ".S", ".cc", ".txt")
_ID_WORD = re.compile(r"\b(LDP_(?:DRIVER|LOADER)_[0-9]+|LLP_(?:LAYER|LOADER)_[0-9]+|RULE_[A-Z0-9]+(?:_[A-Z0-9]+)+)\b")


def implementation_citations(tree_root, roots=IMPL_ROOTS):
    """{id: [tree-relative file, ...]} for every ID named (whole word) in non-test sources under roots."""
    found = {}
    for root in roots:
        base = root if os.path.isabs(root) else os.path.join(tree_root, root)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "testdata")
            for name in sorted(filenames):
                if not name.endswith(IMPL_SUFFIXES) or re.search(r"_test\.[A-Za-z]+$", name):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                rel = os.path.relpath(path, tree_root)
                for pid in sorted(set(_ID_WORD.findall(text))):
                    found.setdefault(pid, []).append(rel)
    return found


def strip_comments(text):
    """Replaces C/C++ comments with spaces (newlines kept, so line numbers stay right).

    String and character literals (including raw strings R"d(...)d") are left intact, so a "//"
    inside a string is not taken for a comment.
    """
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(text[i:end])
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def mask_literals(code):
    """Same length as code, with the inside of string and character literals replaced by '_'.

    Used to find macro names only where they are code, not text inside a string.
    """
    out = list(code)
    for m in re.finditer(r'R"([^()\\ ]{0,16})\((?:.|\n)*?\)\1"|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', code):
        for k in range(m.start() + 1, m.end() - 1):
            if out[k] != "\n":
                out[k] = "_"
    return "".join(out)


def find_citations(path, text):
    """Returns (citations, problems): citations are (id, line) pairs, problems are messages."""
    code = strip_comments(text)
    masked = mask_literals(code)
    citations = []
    problems = []
    indirect = []  # non-literal arguments (e.g. GetParam().rule in a parameterised test)
    spans = []  # argument spans of the macro calls, to tell ID literals inside and outside them apart
    for m in re.finditer(r"\b" + MACRO + r"\s*\(", masked):
        line = code.count("\n", 0, m.start()) + 1
        # Skip the macro's own definition if a scanned file happens to contain it.
        line_start = code.rfind("\n", 0, m.start()) + 1
        if re.match(r"\s*#\s*define\b", code[line_start : m.start()]):
            continue
        depth = 1
        j = m.end()
        args_start = j
        while j < len(code) and depth:
            if code[j] == '"':
                s = _STRING.match(code, j)
                j = s.end() if s else j + 1
                continue
            if code[j] == "(":
                depth += 1
            elif code[j] == ")":
                depth -= 1
            j += 1
        if depth:
            problems.append("%s:%d: unterminated %s(" % (path, line, MACRO))
            continue
        args = code[args_start : j - 1]
        spans.append((args_start, j - 1))
        pieces = [a.strip() for a in _split_args(args)]
        if not pieces or pieces == [""]:
            problems.append("%s:%d: %s() cites no policy" % (path, line, MACRO))
            continue
        for piece in pieces:
            s = _STRING.fullmatch(piece)
            if not s:
                indirect.append((piece, line))
                continue
            value = s.group(1)
            if not policy_table.ID_SYNTAX.match(value):
                problems.append("%s:%d: %r is not a policy ID (one ID per string)" % (path, line, value))
                continue
            citations.append((value, line))
    if indirect:
        # The IDs reach the macro through a variable: count every string literal in the file that is
        # exactly an ID (the parameter table), so they are still checked against the table.
        found = []
        for s in _STRING.finditer(code):
            if any(a <= s.start() < b for a, b in spans):
                continue
            if policy_table.ID_SYNTAX.match(s.group(1)):
                found.append((s.group(1), code.count("\n", 0, s.start()) + 1))
        if found:
            citations.extend(found)
        else:
            for piece, line in indirect:
                problems.append(
                    "%s:%d: %s argument %r is not a string literal and the file has no ID string literal "
                    "(such as a parameter table) it could come from" % (path, line, MACRO, piece))
    return citations, problems


def _split_args(args):
    parts, depth, cur, i = [], 0, [], 0
    while i < len(args):
        ch = args[i]
        if ch == '"':
            s = _STRING.match(args, i)
            if s:
                cur.append(s.group(0))
                i = s.end()
                continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def load_pending(path):
    """Pending file: 'ID reason...' per line; '#' comments and blank lines ignored.

    Returns (entries, problems), entries being {id: (reason, line)}.
    """
    entries, problems = {}, []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, start=1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            parts = text.split(None, 1)
            pid = parts[0]
            reason = parts[1].strip() if len(parts) > 1 else ""
            where = "%s:%d" % (path, number)
            if pid in entries:
                problems.append("%s: %s listed twice (also line %d)" % (where, pid, entries[pid][1]))
                continue
            if not reason:
                problems.append("%s: %s has no reason (write why it has no test yet, e.g. 'needs a second driver')" % (where, pid))
            entries[pid] = (reason, number)
    return entries, problems


def expand_sources(items):
    out = []
    for item in items:
        if item.startswith("@"):
            with open(item[1:], encoding="utf-8") as f:
                out.extend(line.strip() for line in f if line.strip())
        else:
            out.append(item)
    return out


def disk_test_sources(tree_root):
    """Workspace-relative paths of conformance/**/*_test.cc in the real source tree."""
    found = []
    base = os.path.join(tree_root, "conformance")
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith("_test.cc"):
                found.append(os.path.relpath(os.path.join(dirpath, name), tree_root))
    return found


_TEST_DECL = re.compile(r"\b(TEST|TEST_P|TEST_F)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def _test_name_at(path, line, cache={}):
    """Suite.Name of the TEST/TEST_P/TEST_F whose body holds `line` of `path` (nearest before)."""
    if path not in cache:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        cache[path] = [(text.count("\n", 0, m.start()) + 1, m.group(2) + "." + m.group(3))
                       for m in _TEST_DECL.finditer(text)]
    name = None
    for at, n in cache[path]:
        if at <= line:
            name = n
    return name


# The command that writes docs/policy-coverage.md (run at the repository root); --check names it
# when the committed page is stale.
REGENERATE = ("python3 tools/report/policy_coverage.py --policies conformance/policies/policies.tsv "
              "--pending conformance/policies/pending.txt --tree-root . --markdown docs/policy-coverage.md")


def render_markdown(rows, cited, pending, tree_root, impl=None):
    """The text of docs/policy-coverage.md."""
    out = ["# Policy coverage", "",
           "<!-- Generated by tools/report/policy_coverage.py --markdown from conformance/policies/policies.tsv,",
           "     the VKT_POLICY citations of conformance/**/*_test.cc and the IDs named in the implementing",
           "     code (loader/, conformance/driver/, conformance/layer_check/); do not edit. -->", "",
           "Every policy and derived rule, with the tests that prove it (the googletest cases whose",
           "`VKT_POLICY` cites it; data-driven matrices cite through their data files and are named by",
           "file), the code that implements it (the non-test sources that name the ID; loader-side IDs",
           "with tests must have one), the ldp-check check for driver policies, or why it cannot be tested.", "",
           "| ID | kind | summary | tests | code | ldp-check | untestable / pending |",
           "|---|---|---|---|---|---|---|"]
    for p in rows:
        tests = []
        for where in cited.get(p.id, []):
            file, _, line = where.rpartition(":")
            rel = os.path.relpath(file, tree_root) if tree_root else file
            name = _test_name_at(file, int(line)) if line.isdigit() else None
            label = "`%s` (%s)" % (name, os.path.basename(rel)) if name else "`%s`" % os.path.basename(rel)
            if label not in tests:
                tests.append(label)
        note = ""
        if not p.live:
            note = "removed"
        elif p.untestable:
            note = p.untestable_reason
        elif p.id in pending:
            note = "pending: " + pending[p.id][0]
        ldp = getattr(p, "ldp_check", "") or ""
        code = ", ".join("`%s`" % c for c in (impl or {}).get(p.id, [])) or "-"
        out.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            p.id, p.kind, p.summary.replace("|", "\\|"), "<br>".join(tests) or "-", code,
            ("`%s`" % ldp) if ldp else "", note.replace("|", "\\|")))
    return "\n".join(out) + "\n"


def write_markdown(path, rows, cited, pending, tree_root, impl=None):
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_markdown(rows, cited, pending, tree_root, impl))


def check_markdown(path, text, out):
    """0 when the page at path is text; else prints why, the command that regenerates it and the
    start of the difference, and returns 1."""
    try:
        with open(path, encoding="utf-8") as f:
            committed = f.read()
    except OSError as e:
        committed = None
        print("FAIL: cannot read %s: %s" % (path, e), file=out)
    if committed == text:
        print("OK: %s is the rendering of the policy table, the tests' citations and the implementing code"
              % path, file=out)
        return 0
    if committed is not None:
        diff = list(difflib.unified_diff(committed.splitlines(), text.splitlines(), "committed", "fresh",
                                         n=0, lineterm=""))
        body = diff[2:]
        removed = sum(1 for l in body if l.startswith("-"))
        added = sum(1 for l in body if l.startswith("+"))
        print("FAIL: %s is stale: a fresh rendering of conformance/policies/policies.tsv, pending.txt, "
              "the tests' VKT_POLICY citations and the implementing code replaces %d line(s) of it by %d "
              "(- committed, + fresh):" % (path, removed, added), file=out)
        ids = []
        for line in body:
            m = re.match(r"[-+]\| `([A-Z0-9_]+)` \|", line)
            if m and m.group(1) not in ids:
                ids.append(m.group(1))
        if ids:
            print("  rows that changed: %s" % ", ".join(ids), file=out)
        for line in diff[:24]:
            print("  " + (line if len(line) <= 240 else line[:240] + " ..."), file=out)
        if len(diff) > 24:
            print("  ... (%d more diff lines)" % (len(diff) - 24), file=out)
    print("Regenerate it at the repository root with:\n  " + REGENERATE, file=out)
    return 1


def run(argv, out=sys.stdout):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", required=True)
    ap.add_argument("--pending", help="allowlist of IDs without tests yet (the list may only shrink)")
    ap.add_argument("--strict", action="store_true", help="ignore --pending: every live policy needs a test now")
    ap.add_argument("--tree-root", help="also scan this source tree's conformance/**/*_test.cc, and check that "
                    "loader-side IDs with tests are named by their implementing code")
    ap.add_argument("--impl-root", action="append", metavar="DIR",
                    help="implementation root (relative to --tree-root); repeatable; default: %s" % " ".join(IMPL_ROOTS))
    ap.add_argument("--print-pending", action="store_true", help="print pending lines for uncovered IDs and exit 0")
    ap.add_argument("--prune", action="store_true",
                    help="rewrite --pending without the lines of IDs that now have a test, then check")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--markdown", metavar="FILE",
                    help="write the table with, per row, the tests that cite it (docs/policy-coverage.md)")
    ap.add_argument("--check", metavar="FILE",
                    help="exit 1 unless FILE is what --markdown would write now (needs --tree-root); the "
                         "coverage problems themselves are coverage_test's to report")
    ap.add_argument("sources", nargs="*")
    args = ap.parse_args(argv)
    if args.check and not args.tree_root:
        ap.error("--check needs --tree-root (the page names the implementing code)")

    errors, warnings = [], []
    try:
        rows, by_id = policy_table.load(args.policies)
    except policy_table.TableError as e:
        print("FAIL: policy table is malformed:\n  " + "\n  ".join(e.problems), file=out)
        return 1

    sources = expand_sources(args.sources)
    if args.tree_root:
        # Also scan the real tree, so a test file is covered the moment it exists, whether or not its
        # package exports :policy_sources yet.
        given = {os.path.normpath(s) for s in sources}
        for rel in disk_test_sources(args.tree_root):
            if os.path.normpath(rel) not in given:
                sources.append(os.path.normpath(os.path.join(args.tree_root, rel)))
    cited = {}  # id -> [where]
    for path in sources:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        citations, problems = find_citations(path, text)
        errors.extend(problems)
        for pid, line in citations:
            cited.setdefault(pid, []).append("%s:%d" % (path, line))

    for pid in sorted(cited):
        if pid not in by_id:
            errors.append("unknown policy ID %s cited at %s" % (pid, ", ".join(cited[pid])))
        elif by_id[pid].untestable:
            warnings.append("%s is cited by a test but also has an untestable_reason; consider clearing it" % pid)

    if args.prune and args.pending:
        with open(args.pending, encoding="utf-8") as f:
            lines = f.readlines()
        kept = [l for l in lines if not (l.strip() and not l.startswith("#") and l.split()[0] in cited)]
        if len(kept) != len(lines):
            with open(args.pending, "w", encoding="utf-8") as f:
                f.writelines(kept)
            print("pruned %d line(s) from %s" % (len(lines) - len(kept), args.pending), file=out)

    pending = {}
    if args.pending and not args.strict:
        pending, problems = load_pending(args.pending)
        errors.extend(problems)
        for pid, (reason, line) in sorted(pending.items(), key=lambda kv: kv[1][1]):
            where = "%s:%d" % (args.pending, line)
            p = by_id.get(pid)
            if p is None:
                errors.append("%s: pending ID %s is not in the policy table" % (where, pid))
            elif not p.live:
                errors.append("%s: pending ID %s is removed; delete the line" % (where, pid))
            elif p.untestable:
                errors.append("%s: pending ID %s has an untestable_reason; delete the line" % (where, pid))
            elif pid in cited:
                errors.append(
                    "%s: %s is pending but now has a test (%s); delete the line (stale)" % (where, pid, cited[pid][0])
                )

    uncovered = [p for p in rows if p.live and not p.untestable and p.id not in cited]
    if args.print_pending:
        for p in uncovered:
            print("%s\tTODO reason" % p.id, file=out)
        return 0
    missing = [p for p in uncovered if p.id not in pending]
    for p in missing:
        errors.append("%s has no test and no untestable_reason (%s)" % (p.id, p.summary))

    impl = None
    unimplemented = []
    if args.tree_root:
        roots = tuple(args.impl_root) if args.impl_root else IMPL_ROOTS
        impl = implementation_citations(args.tree_root, roots)
        unimplemented = [p for p in rows if p.live and p.kind in IMPL_KINDS and p.id in cited and p.id not in impl]
        for p in unimplemented:
            errors.append("%s (%s) has tests but no implementing code names it: cite it in a comment of the code "
                          "that implements it under %s" % (p.id, p.kind, ", ".join(r + "/" for r in roots)))

    live = [p for p in rows if p.live]
    tested = [p for p in live if p.id in cited]
    untestable = [p for p in live if p.untestable and p.id not in cited]
    waiting = [p for p in uncovered if p.id in pending]
    for w in warnings:
        print("warning: " + w, file=out)
    if args.markdown:
        write_markdown(args.markdown, rows, cited, pending, args.tree_root, impl)
    if args.check:
        if errors:
            print("note: %d coverage problem(s); //conformance/policies:coverage_test reports them" % len(errors),
                  file=out)
        return check_markdown(args.check, render_markdown(rows, cited, pending, args.tree_root, impl), out)
    if args.verbose:
        for p in rows:
            state = ("tested by " + ", ".join(cited[p.id])) if p.id in cited else (
                "removed" if not p.live else "untestable" if p.untestable else "pending" if p.id in pending else "MISSING")
            print("%-40s %s" % (p.id, state), file=out)
    print(
        "policy coverage: %d live policies/rules: %d tested, %d untestable, %d pending, %d missing; "
        "%d source file(s), %d citation(s)"
        % (len(live), len(tested), len(untestable), len(waiting), len(missing), len(sources),
           sum(len(v) for v in cited.values())),
        file=out,
    )
    if impl is not None:
        side = [p for p in live if p.kind in IMPL_KINDS and p.id in cited]
        print("implementation: %d tested loader-side IDs, %d named by implementing code, %d not"
              % (len(side), len(side) - len(unimplemented), len(unimplemented)), file=out)
    if errors:
        print("FAIL: %d problem(s):" % len(errors), file=out)
        for e in errors:
            print("  " + e, file=out)
        return 1
    print("OK", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
