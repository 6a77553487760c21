#!/usr/bin/env python3
"""Writes the seed corpora of the parser targets (json, icd_manifest, layer_manifest, filter,
path_list) into fuzz/corpus/<target>/. Standard library only; re-running rewrites the seeds it
owns (named seed_*), other files are left alone.

    python3 fuzz/tools/parser_seeds.py [fuzz/corpus]
"""
import json
import os
import sys


def icd(version="1.0.1", lib="libmock_icd.so", api="1.3.0", **extra):
    d = {"file_format_version": version, "ICD": {"library_path": lib, "api_version": api}}
    d["ICD"].update(extra)
    return json.dumps(d, indent=4)


ICD_MANIFESTS = {
    # both documented versions, every optional field
    "v100": icd("1.0.0"),
    "v101": icd("1.0.1"),
    "v101_arch64": icd("1.0.1", library_arch="64"),
    "v101_arch32": icd("1.0.1", library_arch="32"),
    "v101_arch_bad": icd("1.0.1", library_arch="x86_64"),
    "v101_arch_number": icd("1.0.1", library_arch=64),
    "v101_portability": icd("1.0.1", is_portability_driver=True),
    "v101_portability_false": icd("1.0.1", is_portability_driver=False),
    "v101_portability_string": icd("1.0.1", is_portability_driver="true"),
    "unknown_version": icd("1.1.0"),
    "future_version": icd("2.0.0"),
    # library path forms
    "lib_absolute": icd(lib="/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"),
    "lib_relative": icd(lib="./libmock_icd.so"),
    "lib_relative_up": icd(lib="../../lib/libmock_icd.so"),
    "lib_bare": icd(lib="libvulkan_intel.so"),
    "lib_empty": icd(lib=""),
    "lib_spaces": icd(lib="my driver/lib mock.so"),
    "lib_utf8": icd(lib="/opt/tr\u00e9iber/libv\u00fclkan.so"),
    # api versions
    "api_1_0": icd(api="1.0.0"),
    "api_1_0_patch": icd(api="1.0.268"),
    "api_variant": icd(api="1.1.3.0"),
    "api_variant0": icd(api="0.1.3.0"),
    "api_major2": icd(api="2.0.0"),
    "api_two_parts": icd(api="1.3"),
    "api_leading_zero": icd(api="01.03.000"),
    "api_overflow": icd(api="1.1024.4096"),
    "api_negative": icd(api="-1.3.0"),
    "api_space": icd(api=" 1.3.0"),
    "api_number": '{"file_format_version": "1.0.0", "ICD": {"library_path": "x.so", "api_version": 4206592}}',
    # malformed classes
    "not_json": "this is not json",
    "truncated": icd()[:30],
    "empty_object": "{}",
    "array_root": "[]",
    "string_root": '"ICD"',
    "no_icd": '{"file_format_version": "1.0.0"}',
    "icd_array": '{"file_format_version": "1.0.0", "ICD": []}',
    "icd_string": '{"file_format_version": "1.0.0", "ICD": "x"}',
    "no_library_path": '{"file_format_version": "1.0.0", "ICD": {"api_version": "1.0.0"}}',
    "library_path_number": '{"file_format_version": "1.0.0", "ICD": {"library_path": 1, "api_version": "1.0.0"}}',
    "no_api_version": '{"file_format_version": "1.0.0", "ICD": {"library_path": "x.so"}}',
    "no_format_version": '{"ICD": {"library_path": "x.so", "api_version": "1.0.0"}}',
    "format_version_number": '{"file_format_version": 1, "ICD": {"library_path": "x.so", "api_version": "1.0.0"}}',
    "duplicate_keys": '{"file_format_version": "1.0.0", "ICD": {"library_path": "a.so", "library_path": "b.so", "api_version": "1.0.0"}, "ICD": {}}',
    "case_keys": '{"File_Format_Version": "1.0.0", "icd": {"Library_Path": "x.so", "API_Version": "1.0.0"}}',
    "unknown_keys": '{"file_format_version": "1.0.0", "comment": [1, {"a": null}], "ICD": {"library_path": "x.so", "api_version": "1.0.0", "extra": true}}',
    "trailing_garbage": icd() + " }",
    "trailing_comma": '{"file_format_version": "1.0.0", "ICD": {"library_path": "x.so", "api_version": "1.0.0",}}',
    "comment": '// driver\n' + icd(),
    "bom": '\ufeff' + icd(),
    "escapes": '{"file_format_version": "1.0.0", "ICD": {"library_path": "\\u002fusr\\/lib\\\\x\\ty.so", "api_version": "1.0.0"}}',
    "nul_escape": '{"file_format_version": "1.0.0", "ICD": {"library_path": "x\\u0000.so", "api_version": "1.0.0"}}',
    "deep": '{"file_format_version": "1.0.0", "x": ' + "[" * 127 + "]" * 127 + ', "ICD": {"library_path": "x.so", "api_version": "1.0.0"}}',
    "too_deep": "[" * 129 + "]" * 129,
    "numbers": '[0, -0, 1e308, 1e309, -1e-400, 123456789012345678901234567890, 0.1]',
    "long_value": '{"file_format_version": "' + "9" * 600 + '", "ICD": {}}',
}

LAYER_BASE = {
    "name": "VK_LAYER_fuzz_layer",
    "type": "GLOBAL",
    "library_path": "./libVkLayer_fuzz.so",
    "api_version": "1.3.250",
    "implementation_version": "1",
    "description": "fuzz layer",
}


def layer(version="1.2.0", key="layer", **fields):
    body = dict(LAYER_BASE)
    for k, v in fields.items():
        if v is None:
            body.pop(k, None)
        else:
            body[k] = v
    return json.dumps({"file_format_version": version, key: body}, indent=2)


LAYER_MANIFESTS = {
    "v100": layer("1.0.0"),
    "v101_layers": json.dumps({"file_format_version": "1.0.1", "layers": [
        dict(LAYER_BASE), dict(LAYER_BASE, name="VK_LAYER_fuzz_second")]}),
    "v110_functions": layer("1.1.0", functions={"vkGetInstanceProcAddr": "MyGIPA",
                                                 "vkGetDeviceProcAddr": "MyGDPA",
                                                 "vkNegotiateLoaderLayerInterfaceVersion": "MyNegotiate"}),
    "v111_meta": layer("1.1.1", library_path=None, component_layers=["VK_LAYER_a", "VK_LAYER_b"]),
    "v111_meta_and_lib": layer("1.1.1", component_layers=["VK_LAYER_a"]),
    "v112_pre_instance": layer("1.1.2", disable_environment={"DISABLE_FUZZ": "1"},
                               pre_instance_functions={"vkEnumerateInstanceExtensionProperties": "PreEIEP",
                                                       "vkEnumerateInstanceLayerProperties": "PreEILP",
                                                       "vkEnumerateInstanceVersion": "PreEIV"}),
    "v120_override": layer("1.2.0", name="VK_LAYER_LUNARG_override", library_path=None,
                           component_layers=["VK_LAYER_KHRONOS_validation"],
                           override_paths=["/opt/layers", "relative/layers"],
                           blacklisted_layers=["VK_LAYER_bad"], app_keys=["/usr/bin/app"],
                           disable_environment={"DISABLE_OVERRIDE": "1"}),
    "v121_arch": layer("1.2.1", library_arch="64"),
    "v121_arch32": layer("1.2.1", library_arch="32"),
    "extensions": layer("1.2.0", instance_extensions=[{"name": "VK_EXT_debug_report", "spec_version": "9"}],
                        device_extensions=[{"name": "VK_EXT_debug_marker", "spec_version": "4",
                                            "entrypoints": ["vkDebugMarkerSetObjectTagEXT"]}]),
    "enable_env": layer("1.2.0", enable_environment={"ENABLE_FUZZ": "1"},
                        disable_environment={"DISABLE_FUZZ": ""}),
    "implicit_no_disable": layer("1.2.0"),
    "type_instance": layer("1.2.0", type="INSTANCE"),
    "type_device": layer("1.2.0", type="DEVICE"),
    "type_bad": layer("1.2.0", type="global"),
    "name_not_vk_layer": layer("1.2.0", name="my_layer"),
    "name_long": layer("1.2.0", name="VK_LAYER_" + "x" * 300),
    "api_variant": layer("1.2.0", api_version="1.1.3.0"),
    "no_name": layer("1.2.0", name=None),
    "no_api_version": layer("1.2.0", api_version=None),
    "neither_lib_nor_components": layer("1.2.0", library_path=None),
    "unknown_version": layer("1.3.0"),
    "layer_and_layers": json.dumps({"file_format_version": "1.0.1", "layer": LAYER_BASE, "layers": [LAYER_BASE]}),
    "two_layer_keys": '{"file_format_version": "1.0.1", "layer": %s, "layer": %s}' % (json.dumps(LAYER_BASE), json.dumps(LAYER_BASE)),
    "no_layer": '{"file_format_version": "1.0.0"}',
    "not_json": "{",
    "layers_not_array": '{"file_format_version": "1.0.1", "layers": {}}',
    "wrong_types": '{"file_format_version": "1.2.0", "layer": {"name": 1, "type": [], "library_path": {}, "api_version": 1, "implementation_version": 1, "description": null}}',
}

FILTERS = {
    "all": "~all~\nmock_icd.json\nVK_LAYER_KHRONOS_validation\n",
    "star": "*\nanything\n",
    "starstar": "**\nanything\n",
    "prefix_suffix_sub": "intel*,*lvp_icd.x86_64.json,*radeon*\n/usr/share/vulkan/icd.d/intel_icd.x86_64.json\nlvp_icd.x86_64.json\nRADEON_icd.json\nnvidia.json\n",
    "interior_star": "a*b,*a*b*\na*b\naxb\nza*bz\n",
    "case": "MOCK_ICD.JSON\nmock_icd.json\nMock_Icd.Json\n",
    "implicit_explicit": "~implicit~,~explicit~,~bogus~,~foo\nVK_LAYER_a\n~foo\n",
    "empty_tokens": ",,a,,\na\n",
    "spaces": " mock , mock\n mock \nmock\n",
    "many_tokens": ",".join("t%d" % i for i in range(20)) + "\nt0\nt15\nt16\nt19\n",
    "long_token": "x" * 300 + "*\n" + "x" * 300 + "\n",
    "select_disable": "intel*\n\x01~all~\nintel_icd.json\nradeon_icd.json\n/etc/vulkan/icd.d/intel_icd.json\n",
    "disable_only": "\n\x01*lvp*\nlvp_icd.x86_64.json\nintel.json\n",
    "paths": "icd.json\n/a/b/icd.json\n/a/b/\nicd.json/\n",
    "utf8": "*\u00e9*\nd\u00e9j\u00e0\nDEJA\n",
}

PATH_LISTS = {
    # options byte: bits 0-1 separator (0 ':'), bits 2-3 suffix
    "typical": b"\x00/etc/vulkan/icd.d/a.json:/usr/share/vulkan/icd.d\x00/home/u/.config\x00/home/u\x00/etc/xdg\x00/home/u/.local/share\x00/usr/local/share:/usr/share\x00/etc\x00",
    "empty_entries": b"\x00::a::b:\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01",
    "all_unset": b"\x04a\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01",
    "all_empty": b"\x08\x00\x00\x00\x00\x00\x00\x00\x00",
    "trailing_slashes": b"\x00/a/:/b//\x00/x//\x00/home///\x00/c/:/d//:/\x00\x00/e/\x00/etc/\x00/opt//",
    "root_dirs": b"\x00/\x00/\x00/\x00/:/\x00/\x00/\x00/\x00/",
    "duplicates": b"\x00a:a:a\x00/same\x00/same\x00/same:/same/\x00/same\x00/same\x00/same\x00/same",
    "relative": b"\x00rel/a:./b:../c\x00rel\x00rel_home\x00rel1:rel2\x00reldata\x00rel3\x00etc\x00",
    "sep_semicolon": b"\x01C:\\a;D:\\b;;\x00",
    "sep_comma": b"\x02a,b,,c\x00",
    "sep_custom": b"\x03|a|b||c",
    "suffix_implicit": b"\x04/p\x00\x01\x00/h\x00\x00\x01\x00\x00/etc\x00",
    "suffix_explicit": b"\x08/p\x00/x\x00/h",
    "suffix_empty": b"\x0c/p\x00/x\x00/h\x00/d\x00/dh\x00/dd\x00/s\x00/es",
    "spaces": b"\x00 a : b \x00 x \x00 h \x00 c d \x00",
}

JSON_DOCS = dict(ICD_MANIFESTS)
JSON_DOCS.update({
    "scalars_true": "true", "scalars_null": "null", "scalar_num": "-12.5e3",
    "string_escapes": '"\\u00e9\\ud83d\\ude00\\n\\"\\\\"',
    "bad_surrogate": '"\\ud800"',
    "object_dup": '{"a": 1, "a": 2, "b": {"a": [1, {"a": null}]}}',
    "whitespace": ' \t\r\n{ } \n',
    "empty": "",
})


def write(outdir, target, seeds, prefix=b""):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    for name, body in seeds.items():
        data = body.encode() if isinstance(body, str) else body
        with open(os.path.join(d, "seed_" + name), "wb") as f:
            f.write(prefix + data)
    return len(seeds)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
    n = write(out, "json_fuzzer", JSON_DOCS)
    # icd_manifest_fuzzer: byte 0 picks the path form; vary it over the seeds
    d = os.path.join(out, "icd_manifest_fuzzer")
    os.makedirs(d, exist_ok=True)
    for i, (name, body) in enumerate(sorted(ICD_MANIFESTS.items())):
        with open(os.path.join(d, "seed_" + name), "wb") as f:
            f.write(bytes([i % 7]) + body.encode())
    n += len(ICD_MANIFESTS)
    d = os.path.join(out, "layer_manifest_fuzzer")
    os.makedirs(d, exist_ok=True)
    for i, (name, body) in enumerate(sorted(LAYER_MANIFESTS.items())):
        implicit = 1 if name.startswith(("implicit", "enable", "v112", "v120")) else (i & 1)
        with open(os.path.join(d, "seed_" + name), "wb") as f:
            f.write(bytes([implicit | ((i % 4) << 1)]) + body.encode())
    n += len(LAYER_MANIFESTS)
    n += write(out, "filter_fuzzer", FILTERS)
    n += write(out, "path_list_fuzzer", PATH_LISTS)
    print("%d seeds written under %s" % (n, out))


if __name__ == "__main__":
    main()
