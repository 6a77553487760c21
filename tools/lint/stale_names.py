#!/usr/bin/env python3
"""Stale pointers in comments and docs: file names and vkl_* identifiers that do not exist.

    tools/lint/stale_names.py [--root DIR] [--allowlist FILE] [-v]

Reads the comments and docs of the tracked files (`git ls-files` in DIR, default the repository
this script is in; a DIR that is not a git work tree is walked instead):

  * C and C++ (.c .h .cc .cpp .hpp .inc): // and /* */ comments;
  * Python (.py), Starlark (BUILD, BUILD.bazel, WORKSPACE, .bzl) and .bazelrc: # comments and
    docstrings (string literals that stand alone as a statement);
  * shell (.sh, or a first line #!.../sh or bash): # comments;
  * Markdown (.md): the whole text.

and reports, as `path:line: ...`, every

  * file name ending in .c, .h, .cc, .py or .sh that names no file of the tree: a bare
    name must be the base name of some tracked file, a name with a directory must be a tracked
    path, or the end of one (`world/world.c` for fuzz/world/world.c), or a path relative to the
    file that names it. Build outputs count as files of the tree: every string literal with such
    an extension in the code of a BUILD or .bzl file (genrule `outs`, target names), and a Python
    or shell file's comments may name the files its own code uses (a test's temporary files).
    Globs (`*.c`, `vkl_gen_*.c`), ranges, URLs and placeholders (`<name>.c`) are not names;
  * `vkl_*` identifier that no source defines or declares: it must occur in the code (not a
    comment, not a docstring) of some tracked C/C++/Python/Starlark/shell file. A prefix
    (`vkl_layer_*`) or a placeholder (`vkl_term_X`) must start some such identifier;
  * policy or rule ID (`LDP_DRIVER_3`, `LLP_LAYER_12`, `RULE_SETTINGS_FILE`) that is no row of
    conformance/policies/policies.tsv (checked when the tree has that table): a comment that cites
    a rule must cite one the coverage report knows. A prefix (`RULE_DRV_*`, `LDP_DRIVER_`) must
    start some ID; the policy families' own names (`LDP_DRIVER`) are not IDs.

Names of other projects' files (the Khronos loader's sources, Vulkan's headers) are listed in the
allowlist, tools/lint/stale_names_allowlist.txt: one name per line (a base name, a path, or a vkl_
identifier), `#` comments say whose it is. Exit status 0 when nothing is stale, 1 otherwise, 2 on
a usage error. Standard library only. ci/check_format runs it over the repository;
//tools/lint:stale_names_test tests it and //tools/lint:stale_names_tree_test runs it on the tree.
"""

import argparse
import io
import os
import re
import subprocess
import sys
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ALLOWLIST = os.path.join(HERE, "stale_names_allowlist.txt")

C_EXT = (".c", ".h", ".cc", ".cpp", ".hpp", ".inc")
PY_EXT = (".py", ".bzl")
STARLARK_NAMES = ("BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel")
NAME_EXT = ("c", "h", "cc", "py", "sh")

# A file name: path characters ending in one of NAME_EXT, starting at a token boundary (not inside
# a glob such as vkl_gen_*.c or a longer word) and not followed by more name characters.
_FILE = re.compile(r"(?<![\w*./+<>{}$%%-])((?:\.{1,2}/)*[\w+-][\w./+-]*?\.(?:%s))(?![\w*+-]|\.\w)" % "|".join(NAME_EXT))
_VKL = re.compile(r"(?<![\w.$/-])(vkl_[A-Za-z0-9_]*)(\*?)")
# Policy IDs: the four numbered families and the named rules (RULE_...). Include guards, macros and
# environment variables that merely start with LDP_/LLP_ (LDP_CHECK_H) are not of this shape.
_POLICY = re.compile(r"(?<![\w$])((?:LDP_(?:DRIVER|LOADER)|LLP_(?:LAYER|LOADER))_[0-9]+|RULE_[A-Z0-9_]*)(\*?)(?![\w])")
POLICY_TABLE = os.path.join("conformance", "policies", "policies.tsv")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")


class Finding:
    def __init__(self, path, line, kind, name, why):
        self.path, self.line, self.kind, self.name, self.why = path, line, kind, name, why

    def __str__(self):
        return "%s:%d: stale %s `%s` (%s)" % (self.path, self.line, self.kind, self.name, self.why)


# ---- which files, and their comments -------------------------------------------------------------


def tracked_files(root):
    """Tree-relative paths of the files to consider: git's tracked files, else every file."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout
        files = [f for f in out.decode("utf-8", "replace").split("\0") if f]
        # A file deleted in the work tree but not yet in the index is not there.
        return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git" and not d.startswith("bazel-"))
            for name in filenames:
                found.append(os.path.relpath(os.path.join(dirpath, name), root))
        return sorted(found)


def language(path, root):
    base = os.path.basename(path)
    if base.endswith(C_EXT):
        return "c"
    if base.endswith(PY_EXT) or base in STARLARK_NAMES or base == ".bazelrc":
        return "py" if base != ".bazelrc" else "sh"
    if base.endswith(".md"):
        return "md"
    if base.endswith(".sh"):
        return "sh"
    if "." not in base:
        try:
            with open(os.path.join(root, path), "rb") as f:
                first = f.readline(200)
        except OSError:
            return None
        if re.match(rb"#!\s*\S*/(env\s+)?(ba)?sh\b", first):
            return "sh"
        if re.match(rb"#!\s*\S*/(env\s+)?python", first):
            return "py"
    return None


def c_comments(text):
    """[(line, comment text)] of the // and /* */ comments of C/C++ source; code elsewhere."""
    out, code = [], []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k, part in enumerate(text[i + 2:j - 2].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i + m.end()) if m else -1
            end = i + 1 if not m else (n if end < 0 else end + len(m.group(1)) + 2)
            code.append(text[i:end])
            line += text.count("\n", i, end)
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            code.append(text[i:j + 1])
            i = j + 1
        else:
            if c == "\n":
                line += 1
            code.append(c)
            i += 1
    return out, "".join(code)


def py_comments(text):
    """[(line, text)] of the # comments and docstrings of Python/Starlark; the rest of the code."""
    out, code = [], []
    try:
        prev = tokenize.NEWLINE
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string[1:]))
                continue
            if tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                                        tokenize.NL):
                for k, part in enumerate(tok.string.split("\n")):
                    out.append((tok.start[0] + k, part))
                prev = tok.type
                continue
            if tok.type not in (tokenize.NL, tokenize.COMMENT):
                prev = tok.type
            code.append(tok.string)
        return out, "\n".join(code)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return sh_comments(text)


def sh_comments(text):
    """[(line, text)] of the # comments of a shell script (a # at a word start, outside quotes)."""
    out, code = [], []
    for number, raw in enumerate(text.split("\n"), start=1):
        quote = None
        k = 0
        cut = None
        while k < len(raw):
            ch = raw[k]
            if quote:
                if ch == "\\" and quote == '"':
                    k += 2
                    continue
                if ch == quote:
                    quote = None
            elif ch == "\\":
                k += 2
                continue
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (k == 0 or raw[k - 1] in " \t;(|&"):
                cut = k
                break
            k += 1
        if cut is None:
            code.append(raw)
        else:
            if number > 1 or not raw.startswith("#!"):
                out.append((number, raw[cut + 1:]))
            code.append(raw[:cut])
    return out, "\n".join(code)


def comments_of(path, lang, text):
    if lang == "c":
        return c_comments(text)
    if lang == "py":
        return py_comments(text)
    if lang == "sh":
        return sh_comments(text)
    return [(k, part) for k, part in enumerate(text.split("\n"), start=1)], ""


# ---- what exists ------------------------------------------------------------------------------


def load_allowlist(path):
    names = set()
    if not path or not os.path.exists(path):
        return names
    with open(path, encoding="utf-8") as f:
        for raw in f:
            name = raw.split("#", 1)[0].strip()
            if name:
                names.add(name)
    return names


class Tree:
    def __init__(self, root, files):
        self.root = root
        self.paths = set(files)
        self.basenames = {}
        for f in files:
            self.basenames.setdefault(os.path.basename(f), []).append(f)
        self.outputs = set()  # build outputs and target names with a checked extension (BUILD / .bzl)
        self.identifiers = set()  # vkl_* names in code
        self.own = {}  # path -> the file names its own Python/shell code uses
        self.policy_ids = None  # the IDs of conformance/policies/policies.tsv (None: no table)
        try:
            with open(os.path.join(root, POLICY_TABLE), encoding="utf-8") as fh:
                self.policy_ids = {ln.split("\t", 1)[0] for ln in fh if ln.strip() and not ln.startswith("id\t")}
        except OSError:
            pass

    def add_code(self, lang, path, code):
        for m in re.finditer(r"\bvkl_[A-Za-z0-9_]*", code):
            self.identifiers.add(m.group(0))
        if lang == "c":
            return
        # Starlark: the names in a BUILD/.bzl file's code are files of the tree or build outputs
        # (genrule outs, target names); a Bazel label names a file of its package (//pkg:FILE is
        # pkg/FILE, :FILE in the BUILD file's own package). Python and shell: the names a script's code
        # uses (the files a test or a generator writes) may be named by its own comments only, so
        # that a string elsewhere (a lint fixture) cannot make a stale name exist.
        starlark = os.path.basename(path) in STARLARK_NAMES or path.endswith(".bzl")
        names = self.outputs if starlark else self.own.setdefault(path, set())
        pkg = os.path.dirname(path)
        for m in re.finditer(r"(?<![\w.*/-])(//[\w/.-]*:|:)?([\w][\w./+-]*\.(?:%s))(?![\w+-])" % "|".join(NAME_EXT), code):
            label, name = m.group(1), m.group(2)
            names.add(name)
            names.add(os.path.basename(name))
            if label and label.startswith("//"):
                names.add(os.path.normpath(os.path.join(label[2:-1], name)))
            else:
                names.add(os.path.normpath(os.path.join(pkg, name)))

    def file_exists(self, name, where):
        """None when `name`, named in the file `where`, is a file of the tree; else why not."""
        base = os.path.basename(name)
        own = self.own.get(where, ())
        if name in own or base in own:
            return None
        if "/" not in name:
            if base in self.basenames or base in self.outputs:
                return None
            return "no file of that name in the tree"
        rel = os.path.normpath(os.path.join(os.path.dirname(where), name))
        if rel in self.paths or rel in self.outputs:
            return None
        stripped = re.sub(r"^(?:\.{1,2}/)+", "", name)
        if stripped in self.paths or stripped in self.outputs:
            return None
        if any(p == stripped or p.endswith("/" + stripped) for p in self.basenames.get(base, [])):
            return None
        if any(o.endswith("/" + stripped) or o == stripped for o in self.outputs):
            return None
        if base in self.outputs and not any(o.endswith("/" + base) for o in self.outputs if "/" in o):
            # A file a macro makes (a .bzl output list) lands in the calling package: any path will do.
            return None
        if base in self.basenames:
            return "no such path; %s is %s" % (base, ", ".join(self.basenames[base][:3]))
        return "no file of that name in the tree"


# ---- the lint ------------------------------------------------------------------------------------


def lint(root, allowlist=(), verbose=False):
    files = tracked_files(root)
    langs = {}
    texts = {}
    for f in files:
        lang = language(f, root)
        if lang is None:
            continue
        try:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                texts[f] = fh.read()
        except OSError:
            continue
        langs[f] = lang
    tree = Tree(root, files)
    docs = {}
    for f, lang in langs.items():
        comments, code = comments_of(f, lang, texts[f])
        docs[f] = comments
        tree.add_code(lang, f, code)
    allow = set(allowlist)
    findings = []
    for f in sorted(docs):
        seen = set()
        for line, text in docs[f]:
            text = _URL.sub(" ", text)
            for m in _FILE.finditer(text):
                name = m.group(1)
                if ".." in name.lstrip("./"):
                    continue  # a range (VK_LAYER_FUZZ_a..h), not a name
                if name in allow:
                    continue
                why = tree.file_exists(name, f)
                if why and os.path.normpath(name).startswith(".."):
                    continue  # beside the repository (../shared/...): not the tree's to check
                if why and (line, name) not in seen:
                    seen.add((line, name))
                    findings.append(Finding(f, line, "file name", name, why))
            for m in _VKL.finditer(text):
                ident, star = m.group(1), m.group(2)
                end = m.end(1)
                if text[end:end + 1] == "." and re.match(r"\.(?:%s)\b" % "|".join(NAME_EXT + ("inc", "so")), text[end:]):
                    continue  # part of a file name (vkl_gen_results.h): the file rule's business
                if ident in allow:
                    continue
                shown = ident + star
                if re.search(r"_[A-Z]$", ident):
                    ident = ident[:-1]  # vkl_term_X: a placeholder for a command's name
                if star or ident.endswith("_"):
                    if any(i.startswith(ident) for i in tree.identifiers) or ident == "vkl_":
                        continue
                    why = "no identifier in the code starts with it"
                elif ident in tree.identifiers:
                    continue
                else:
                    why = "not defined or declared anywhere in the tree"
                if (line, ident) not in seen:
                    seen.add((line, ident))
                    findings.append(Finding(f, line, "identifier", shown, why))
            if tree.policy_ids is None:
                continue
            for m in _POLICY.finditer(text):
                ident, star = m.group(1), m.group(2)
                if ident in allow or ident in tree.policy_ids:
                    continue
                if star or ident.endswith("_"):
                    if any(i.startswith(ident) for i in tree.policy_ids):
                        continue
                    why = "no ID in %s starts with it" % POLICY_TABLE
                else:
                    why = "no row of %s" % POLICY_TABLE
                if (line, ident) not in seen:
                    seen.add((line, ident))
                    findings.append(Finding(f, line, "policy ID", ident + star, why))
    if verbose:
        print("stale_names: %d files read, %d vkl_ identifiers in code, %d build outputs" % (
            len(docs), len(tree.identifiers), len(tree.outputs)))
    return findings, len(docs)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)),
                    help="the tree to check (default: this repository)")
    ap.add_argument("--allowlist", default=DEFAULT_ALLOWLIST, help="external names (default: %(default)s)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.root):
        print("stale_names: no such directory %s" % args.root, file=sys.stderr)
        return 2
    findings, nfiles = lint(args.root, load_allowlist(args.allowlist), args.verbose)
    for finding in findings:
        print(finding)
    if findings:
        print("stale_names: %d stale name(s) in comments and docs of %d file(s); point them at the real file "
              "or identifier, or list another project's name in %s" % (
                  len(findings), len({x.path for x in findings}), os.path.relpath(args.allowlist, args.root)
                  if args.allowlist.startswith(os.path.abspath(args.root)) else args.allowlist))
        return 1
    print("stale_names: no stale file name, vkl_ identifier or policy ID in the comments and docs of %d files" % nfiles)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
