#!/usr/bin/env python3
"""Per-target test durations from a Bazel --build_event_json_file (Python 3 stdlib).

  durations.py BEP.json [--copy-xml DIR]

Prints TSV lines: area, target, shards, wall_ms (longest shard), sum_ms (all shards), status.
`area` is the target's package plus its name without the loader suffix (_ours / _khronos), e.g.
conformance/loader/matrix:driver_matrix_test. With --copy-xml, copies each test.xml the invocation
wrote into DIR/<package>/<target>/test.xml (DIR/<package>/<target>/shard_I_of_N/test.xml when sharded),
with the test.log beside it (a results tree for report.py, which links the logs of failing tests).
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
        outs = {o.get("name"): unquote(urlparse(o["uri"]).path) for o in res.get("testActionOutput", [])
                if o.get("uri", "").startswith("file://")}
        if "test.xml" in outs:
            xmls.append((label, shard, outs["test.xml"], outs.get("test.log")))
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
        for label, shard, path, log in xmls:
            pkg, _, name = label.lstrip("/").partition(":")
            shards = len(per[label]["shards"])
            dest = os.path.join(args.copy_xml, pkg, name)
            if shards > 1:
                dest = os.path.join(dest, "shard_%d_of_%d" % (shard, shards))
            os.makedirs(dest, exist_ok=True)
            if os.path.exists(path):
                shutil.copyfile(path, os.path.join(dest, "test.xml"))
            if log and os.path.exists(log):
                shutil.copyfile(log, os.path.join(dest, "test.log"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
