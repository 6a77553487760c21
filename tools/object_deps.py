#!/usr/bin/env python3
"""Link-level dependency arrows between the loader's object files.

An arrow A -> B means A.o has an undefined symbol (a call, or a function or data address taken)
that B.o defines. Only non-static definitions count: an inline function in a header compiles into
its caller and makes no arrow, which is the point of loader/internal/handles.h's casts.

Usage:
  tools/object_deps.py [--lib ARCHIVE | --objs DIR] [--all] [--dot] [NAME ...]

  --lib ARCHIVE  //loader:core's archive, libcore.lo: exactly the objects of the last build
                 (default: bazel-bin/loader/libcore.lo, found through `bazel info output_path`,
                 with the output base in $BAZEL_OUTPUT_BASE when set).
  --objs DIR     a directory of objects instead (Bazel's _objs/core keeps the objects of sources
                 since removed or not yet added, so the archive is the safer input).
  --all       every object of //loader:core (default: the object core, CORE below).
  NAME        object names without .o / .pic.o (overrides the default set).
  --dot       print a Graphviz digraph instead of the arrow list.

Reads `nm -P` output only (python3 standard library and binutils); build //loader:core first.
Prints each arrow with the symbols behind it, then "arrows: N" (and the cycles' members, if any).
"""
import argparse
import os
import subprocess
import sys

# The loader's object files (docs/architecture.md "Object core"); a name without an object is skipped.
CORE = ["instance", "physdev", "physdev_order", "physdev_groups", "physdev_props2", "device", "layer_chain", "terminator_gpa", "unknown_func", "wsi", "debug", "handles"]

DEFINED = set("TDRBVWGS")


def find_lib():
    cmd = ["bazel"]
    base = os.environ.get("BAZEL_OUTPUT_BASE")
    if base:
        cmd.append("--output_base=" + base)
    cmd += ["info", "output_path"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "k8-fastbuild", "bin", "loader", "libcore.lo")


def obj_name(filename):
    for suffix in (".pic.o", ".o"):
        if filename.endswith(suffix):
            return filename[: -len(suffix)]
    return None


def parse_nm(text, default_member=None):
    """{member: (defined, undefined)} from `nm -P` of one object or of an archive."""
    result = {}
    member = default_member
    for line in text.splitlines():
        if line.endswith("]:") and "[" in line:  # archive member header: "lib.lo[name.pic.o]:"
            member = line[line.rindex("[") + 1 : -2]
            continue
        parts = line.split()
        if len(parts) < 2 or member is None:
            continue
        defined, undefined = result.setdefault(member, (set(), set()))
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in DEFINED:
            defined.add(name)
    return result


def nm(path):
    return subprocess.run(["nm", "-P", path], check=True, capture_output=True, text=True).stdout


def arrows(syms):
    """{(a, b): sorted symbols} for the objects given as {name: (defined, undefined)}."""
    owner = {}
    for n, (defined, _) in syms.items():
        for s in defined:
            owner[s] = n
    result = {}
    for a, (_, undefined) in syms.items():
        for s in undefined:
            b = owner.get(s)
            if b is not None and b != a:
                result.setdefault((a, b), []).append(s)
    return {k: sorted(v) for k, v in result.items()}


def cycles(names, edges):
    """Strongly connected components with more than one member (Tarjan)."""
    graph = {n: sorted(b for (a, b) in edges if a == n) for n in names}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in sorted(names):
        if n not in index:
            visit(n)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--lib")
    group.add_argument("--objs")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--dot", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args(argv)
    members = {}
    if args.objs:
        for f in sorted(os.listdir(args.objs)):
            if obj_name(f) is not None:
                members.update(parse_nm(nm(os.path.join(args.objs, f)), f))
    else:
        members = parse_nm(nm(args.lib or find_lib()))
    present = {}
    for m, syms in members.items():
        n = obj_name(m)
        if n is not None and not n.startswith("vkl_gen_"):
            present[n] = syms
    want = args.names or (sorted(present) if args.all else CORE)
    objs = {n: present[n] for n in want if n in present}
    edges = arrows(objs)
    if args.dot:
        print("digraph loader_objects {")
        for (a, b), s in sorted(edges.items()):
            print('  "%s" -> "%s" [label="%d"];' % (a, b, len(s)))
        print("}")
        return 0
    for (a, b), s in sorted(edges.items()):
        print("%s -> %s: %s" % (a, b, " ".join(s)))
    print("objects: %s" % " ".join(sorted(objs)))
    print("arrows: %d" % len(edges))
    for comp in cycles(objs, edges):
        print("cycle: %s" % " ".join(comp))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
