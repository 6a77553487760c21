#!/usr/bin/env python3
"""Writes large-array seeds for the parser targets (RULE_ADVERSARIAL_INPUT): for every array (and
many-member object) field of a driver manifest, a layer manifest and a settings file, one document
with LARGE entries in that field, so a parser that walks a list superlinearly runs past the
target's libFuzzer -timeout (fuzz/options/<target>.options) on the seed pass itself and mutations
start from the shapes that reach it. Generated, not checked in (several MB): fuzz/build.sh writes
them into the seed zips. Standard library only.

    python3 fuzz/tools/large_seeds.py OUTDIR [LARGE]     # OUTDIR/<target>/large_<field>
"""
import json
import os
import sys

LARGE = 30000  # an indexed walk: ~4.5e8 list steps, seconds under ASan; a linear one: milliseconds

LAYER = {"name": "VK_LAYER_fuzz_large", "type": "GLOBAL", "library_path": "./libl.so",
         "api_version": "1.3.250", "implementation_version": "1", "description": "d",
         "disable_environment": {"DISABLE_LARGE": "1"}}


def strings(prefix, n):
    return ["%s%d" % (prefix, i) for i in range(n)]


def members(prefix, n, value):
    return {"%s%d" % (prefix, i): value for i in range(n)}


def layer_file(version="1.2.1", **fields):
    body = dict(LAYER)
    body.update(fields)
    return {"file_format_version": version, "layer": body}


def layer_seeds(n):
    ext = [{"name": "VK_EXT_e%d" % i, "spec_version": "1"} for i in range(n)]
    small = max(n // 10, 1)  # whole layer objects are ~200 bytes each
    meta = {k: v for k, v in LAYER.items() if k != "library_path"}
    meta["component_layers"] = strings("VK_LAYER_c", n)
    return {
        "layers": {"file_format_version": "1.0.1",
                   "layers": [dict(LAYER, name="VK_LAYER_l%d" % i) for i in range(small)]},
        "component_layers": {"file_format_version": "1.1.1", "layer": meta},
        "instance_extensions": layer_file(instance_extensions=ext),
        "device_extensions": layer_file(device_extensions=ext),
        "entrypoints": layer_file(device_extensions=[{"name": "VK_EXT_e", "spec_version": "1",
                                                      "entrypoints": strings("vkCmdE", n)}]),
        "override_paths": layer_file(override_paths=strings("/p/", n)),
        "blacklisted_layers": layer_file(blacklisted_layers=strings("VK_LAYER_b", n)),
        "app_keys": layer_file(app_keys=strings("/a/", n)),
        "override_all": layer_file(name="VK_LAYER_LUNARG_override", app_keys=strings("/a/", n),
                                   blacklisted_layers=strings("VK_LAYER_b", n),
                                   override_paths=strings("/p/", n)),
        "functions": layer_file(functions=members("vkF", n, "x"),
                                pre_instance_functions=members("vkP", n, "x")),
        "enable_environment": layer_file(enable_environment=members("E", n, "1")),
        "unknown_members": layer_file(**members("unknown_", n, [1])),
    }


def settings_file(**fields):
    return {"file_format_version": "1.0.0", "settings": fields}


def settings_seeds(n):
    small = max(n // 10, 1)
    uuid = list(range(16))
    words = ["error", "warn", "info", "debug", "perf", "layer", "driver", "all", "nope"]
    return {
        "stderr_log": settings_file(stderr_log=[words[i % len(words)] for i in range(n)]),
        "log_locations": settings_file(stderr_log=["error"], log_locations=[
            {"destinations": ["/tmp/l%d" % i], "filters": ["all"]} for i in range(small)]),
        "layers": settings_file(layers=[{"control": "on", "name": "VK_LAYER_l%d" % i, "path": "/l/%d.json" % i}
                                        for i in range(small)]),
        "layers_unordered": settings_file(layers=[{"control": "unordered_layer_location"} for _ in range(small)]),
        "additional_drivers": settings_file(additional_drivers=[{"path": "/d/%d.json" % i} for i in range(n)]),
        "device_configurations": settings_file(device_configurations=[
            {"deviceUUID": uuid, "driverUUID": uuid, "driverVersion": i} for i in range(small)]),
        "device_uuid_long": settings_file(device_configurations=[
            {"deviceUUID": list(range(n)), "driverUUID": uuid, "driverVersion": 1}]),
        "app_keys": settings_file(app_keys=strings("/other/", n) + ["/opt/app/bin/game"], stderr_log=["warn"]),
        "settings_array": {"file_format_version": "1.0.0", "settings_array": [
            {"app_keys": ["/other/%d" % i], "stderr_log": ["all"]} for i in range(small)] + [
            {"app_keys": ["/opt/app/bin/game"], "stderr_log": ["warn"]}]},
    }


def icd_seeds(n):
    many = members("k", n, [0])
    icd = dict(many)
    icd.update({"library_path": "./libd.so", "api_version": "1.3.0"})
    doc = dict(many)
    doc.update({"file_format_version": "1.0.1", "ICD": icd})
    return {"unknown_members": doc}


def write(outdir, target, prefix, seeds):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    for name, doc in seeds.items():
        with open(os.path.join(d, "large_" + name), "wb") as f:
            f.write(prefix + json.dumps(doc, separators=(",", ":")).encode())
    return len(seeds)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else LARGE
    # Framings (fuzz/FRAMING.md): byte 0 of layer_manifest_fuzzer (bit 0: implicit), of
    # icd_manifest_fuzzer (the path form) and of settings_fuzzer (0: the executable
    # "/opt/app/bin/game"); json_fuzzer takes the document as is.
    k = write(out, "layer_manifest_fuzzer", b"\x01", layer_seeds(n))
    k += write(out, "settings_fuzzer", b"\x00", settings_seeds(n))
    k += write(out, "icd_manifest_fuzzer", b"\x00", icd_seeds(n))
    docs = dict(layer_seeds(n), **settings_seeds(n))
    k += write(out, "json_fuzzer", b"", {f: docs[f] for f in ("app_keys", "stderr_log", "unknown_members")})
    print("%d large seeds (%d entries) written under %s" % (k, n, out))


if __name__ == "__main__":
    main()
