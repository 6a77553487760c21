#!/usr/bin/env python3
"""Per-target test durations from a Bazel --build_event_json_file (Python 3 stdlib).

  durations.py BEP.json [--copy-xml DIR]

Prints TSV lines: area, target, shards, wall_ms (longest shard), sum_ms (all shards), status.
`area` is the target's package plus its name without the loader suffix (_ours / _khronos), e.g.
conformance/loader/matrix:driver_matrix_test. With --copy-xml, copies each test.xml the invocation
wrote into DIR/<package>/<target>/<shard>/test.xml (a results tree for report.py).
"""
import argparse
import json
import os
import re
import shutil
import sys
from urllib.parse import unquote, urlparse


def events(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


def collect(path):
    per = {}
    xmls = []
    for ev in events(path):
        tr = ev.get("id", {}).get("testResult")
        if not tr:
            continue
        label = tr.get("label", "?")
        shard = int(tr.get("shard", 0) or 0)
        res = ev.get("testResult", {})
        ms = int(res.get("testAttemptDurationMillis", 0) or 0)
        d = per.setdefault(label, {"shards": set(), "wall": 0, "sum": 0, "status": set()})
        d["shards"].add(shard)
        d["wall"] = max(d["wall"], ms)
        d["sum"] += ms
        d["status"].add(res.get("status", "?"))
        for out in res.get("testActionOutput", []):
            if out.get("name") == "test.xml" and out.get("uri", "").startswith("file://"):
                xmls.append((label, shard, unquote(urlparse(out["uri"]).path)))
    return per, xmls


def area_of(label):
    return re.sub(r"_(ours|khronos)$", "", label.lstrip("/"))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bep")
    ap.add_argument("--copy-xml", metavar="DIR")
    args = ap.parse_args(argv)
    per, xmls = collect(args.bep)
    for label in sorted(per):
        d = per[label]
        status = "PASSED" if d["status"] == {"PASSED"} else ",".join(sorted(d["status"]))
        print("\t".join([area_of(label), label, str(len(d["shards"])), str(d["wall"]), str(d["sum"]), status]))
    if args.copy_xml:
        for label, shard, path in xmls:
            pkg, _, name = label.lstrip("/").partition(":")
            dest = os.path.join(args.copy_xml, pkg, name, "shard_%d" % shard)
            os.makedirs(dest, exist_ok=True)
            if os.path.exists(path):
                shutil.copyfile(path, os.path.join(dest, "test.xml"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
