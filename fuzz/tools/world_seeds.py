#!/usr/bin/env python3
"""Writes the loader_world_fuzzer seed corpus: worlds encoded in the framing of fuzz/FRAMING.md.

    python3 fuzz/tools/world_seeds.py fuzz/corpus/loader_world_fuzzer

Standard library only. The encoder below is the second implementation of the framing (the first is
world_decode() in fuzz/world/world.c); keep both and FRAMING.md in sync. Seeds are named after what
they exercise; re-running the script rewrites them (other files in the directory are left alone).
"""
import os
import struct
import sys

VARIANTS = [
    "v0", "v1", "v2", "v2_gpdpa", "v2_vkexports", "v2_gpdpa_vkexports", "v3", "v3_gpdpa",
    "v3_vkexports", "v3_gpdpa_vkexports", "v4", "v4_gpdpa", "v4_vkexports", "v4_gpdpa_vkexports",
    "v5", "v5_gpdpa", "v5_vkexports", "v5_gpdpa_vkexports", "v6", "v6_gpdpa", "v6_vkexports",
    "v6_gpdpa_vkexports", "v7", "v7_nogpdpa", "v7_exports", "v7_vkexports", "v7_exports_vkexports",
]
LOCATIONS = ["VK_DRIVER_FILES-file", "VK_DRIVER_FILES-dir", "VK_ICD_FILENAMES-file",
             "VK_ADD_DRIVER_FILES-dir", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
             "HOME-local-share"]
LIBFORMS = ["absolute", "relative", "bare", "missing"]
INJECT_CMDS = [
    "vk_icdNegotiateLoaderICDInterfaceVersion", "vkCreateInstance",
    "vkEnumerateInstanceExtensionProperties", "vkEnumerateInstanceVersion",
    "vkEnumeratePhysicalDevices", "vkEnumeratePhysicalDeviceGroups", "vkCreateDevice",
    "vkEnumerateDeviceExtensionProperties", "vkCreateDebugUtilsMessengerEXT",
    "vkGetPhysicalDeviceImageFormatProperties"]
RESULTS = ["INCOMPATIBLE_DRIVER", "INITIALIZATION_FAILED", "OUT_OF_HOST_MEMORY", "INCOMPLETE",
           "EXTENSION_NOT_PRESENT", "DEVICE_LOST", "EVENT_SET", "UNKNOWN"]
MISBEHAVE = ["crash_with_zero_devices", "no_loader_magic", "gpdpa_answers_everything",
             "incompatible_for_any_api_above_1_0", "accept_any_api_version",
             "unpublished_extension", "surface_without_interface_3", "corrupt_other_driver",
             "fail_enumerate_physical_devices"]
ENV = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_SELECT",
       "VK_LOADER_DRIVERS_DISABLE", "HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME",
       "XDG_DATA_DIRS", "VK_LAYER_PATH", "VK_ADD_LAYER_PATH", "VK_IMPLICIT_LAYER_PATH",
       "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE", "VK_INSTANCE_LAYERS",
       "VK_LOADER_LAYERS_ALLOW", "VK_LOADER_DEVICE_ID_FILTER"]
INST_EXTS = ["VK_KHR_get_physical_device_properties2", "VK_KHR_surface", "VK_KHR_xcb_surface",
             "VK_EXT_debug_utils", "VK_KHR_portability_enumeration",
             "VK_KHR_device_group_creation", "VK_KHR_external_memory_capabilities",
             "VK_EXT_debug_report"]


# Seeds that still crash the loader live in fuzz/crashes/<target>/ until the bug is fixed (then
# they move to fuzz/regressions/ and the seed comes back here). None is open now.
OPEN_CRASH_COMMANDS = set()


def u8(v):
    return struct.pack("<B", v & 0xff)


def u16(v):
    return struct.pack("<H", v & 0xffff)


def u32(v):
    return struct.pack("<I", v & 0xffffffff)


def s8(b):
    b = b.encode() if isinstance(b, str) else b
    assert len(b) < 256
    return u8(len(b)) + b


def s16(b):
    b = b.encode() if isinstance(b, str) else b
    return u16(len(b)) + b


def mask(names, table):
    m = 0
    for n in names:
        m |= 1 << table.index(n)
    return m


def scenario(if_min=0, if_max=7, negotiate_result=None, report_version=None, hide_eiv=False,
             record_lookups=False, groups=False, dev_funcs=0, pd_funcs=0, api=(3, False),
             inst_exts=("VK_KHR_get_physical_device_properties2",), pds=((3, 0, 1),),
             inject=(), misbehave=()):
    """pds: (api_minor, device_ext_mask, queue_families 1..4); api: (minor 0..3, patch204)."""
    out = u8((if_min % 9) | ((if_max % 9) << 4))
    f = (1 if negotiate_result is not None else 0) | (2 if report_version is not None else 0) \
        | (4 if hide_eiv else 0) | (8 if record_lookups else 0) | (16 if groups else 0) \
        | (32 if dev_funcs else 0) | (64 if pd_funcs else 0)
    out += u8(f)
    if negotiate_result is not None:
        out += u8(RESULTS.index(negotiate_result))
    if report_version is not None:
        out += u8(report_version)
    if api == "weird":
        out += u8(0xff)
    else:
        out += u8((api[0] & 3) | (4 if api[1] else 0))
    out += u8(mask(inst_exts, INST_EXTS))
    out += u8(len(pds))
    for minor, extmask, fams in pds:
        out += u8((minor & 3) | ((extmask & 15) << 2) | (((fams - 1) & 3) << 6))
    out += u8(len(inject))
    for cmd, res in inject:
        out += u8(INJECT_CMDS.index(cmd)) + u8(RESULTS.index(res))
    out += u16(mask(misbehave, MISBEHAVE))
    if dev_funcs:
        out += u8(dev_funcs - 1)
    if pd_funcs:
        out += u8(pd_funcs - 1)
    return out


def driver(variant="v7", location=0, libform=0, stem=0, manifest=None, raw=None, sc=None):
    """manifest: (fmt 0..7, api byte, opt byte) for a generated manifest; raw: bytes."""
    out = u8(VARIANTS.index(variant))
    out += u8((location & 7) | ((libform & 3) << 3) | ((stem & 7) << 5))
    if raw is not None:
        out += u8(1) + s16(raw)
    else:
        fmt, api, opt = manifest if manifest is not None else (1, 3, 0)
        out += u8(0) + u8(fmt) + u8(api) + u8(opt)
    out += sc if sc is not None else scenario()
    return out


def gen_api(minor=3, form=0, patch_idx=0):
    return (minor & 7) | ((form & 3) << 3) | ((patch_idx & 7) << 5)


def world(drivers=(), elevated=False, chdir=False, allocator=False, dbg_utils=False,
          dbg_report=False, app_info=True, groups=True, device=True, env=(), api=4, api_raw=None,
          portability_flag=False, odd_flag=False, exts=(), layers=(), eiep_layer=None,
          eiep_short=False, pd_short=False, devext_layer=False, app_messenger=False,
          unknown_pd=False, unknown_dev=False, pd_choice=0, queue_family=0, queue_count=1,
          dev_exts=(), alloc_fail_at=0, msg=0, lookup=""):
    """env: (name, mode, value): mode "unset" | "empty" | "locations" (value: location indexes)
    | "raw" (value: string, @W@ = the world directory)."""
    out = u8((1 if elevated else 0) | (2 if chdir else 0) | (4 if allocator else 0)
             | (8 if dbg_utils else 0) | (16 if dbg_report else 0) | (32 if app_info else 0)
             | (64 if groups else 0) | (128 if device else 0))
    out += u8(len(drivers))
    for d in drivers:
        out += d
    out += u8(len(env))
    for name, mode, value in env:
        out += u8(ENV.index(name))
        if mode == "unset":
            out += u8(0)
        elif mode == "empty":
            out += u8(1)
        elif mode == "locations":
            out += u8(2) + u8(sum(1 << i for i in value))
        else:
            out += u8(3) + s8(value)
    if api_raw is not None:
        out += u8(0xff) + u32(api_raw)
    else:
        out += u8(api)  # 0: none, 1: 1.0, 2: 1.1, 3: 1.2, 4: 1.3, 5: 1.4
    out += u8((1 if portability_flag else 0) | (0x80 if odd_flag else 0))
    out += u8(len(exts))
    for e in exts:
        if e in INST_EXTS:
            out += u8(INST_EXTS.index(e))
        elif e == "VK_MOCK_unpublished_extension":
            out += u8(9)   # 9 % 3 == 0
        elif e == "VK_KHR_wayland_surface":
            out += u8(10)  # 10 % 3 == 1
        else:
            out += u8(0xff) + s8(e)
    out += u8(len(layers))
    for layer in layers:
        out += s8(layer)
    q = (1 if eiep_layer is not None else 0) | (2 if eiep_short else 0) | (4 if pd_short else 0) \
        | (8 if devext_layer else 0) | (16 if app_messenger else 0) | (32 if unknown_pd else 0) \
        | (64 if unknown_dev else 0)
    out += u8(q)
    if eiep_layer is not None:
        out += s8(eiep_layer)
    out += u8(pd_choice) + u8(queue_family) + u8(queue_count - 1)
    out += u8(len(dev_exts))
    for e in dev_exts:
        out += u8(["VK_KHR_swapchain", "VK_KHR_maintenance1", "VK_KHR_portability_subset",
                   "VK_KHR_device_group"].index(e))
    out += u8(alloc_fail_at) + u8(msg) + s8(lookup)
    return out


def manifest_json(version="1.0.1", api="1.3.0", extra=""):
    return ('{"file_format_version": "%s", "ICD": {"library_path": "@LIB@", "api_version": "%s"%s}}'
            % (version, api, extra)).encode()


def seeds():
    s = {}
    s["empty_world"] = world()
    s["no_drivers_no_app_info"] = world(app_info=False, api=0)
    # every mock variant, the common case
    for v in VARIANTS:
        s["variant_%s" % v] = world([driver(v)])
    # every search location x library path form
    for loc in range(8):
        for lf in range(4):
            s["location_%s_lib_%s" % (LOCATIONS[loc], LIBFORMS[lf])] = \
                world([driver("v7", location=loc, libform=lf, stem=loc)])
    # relative entries (run from the world root)
    for loc in range(8):
        s["chdir_%s" % LOCATIONS[loc]] = world([driver("v6_gpdpa", location=loc, libform=1)],
                                               chdir=True)
    # generated manifest shapes
    for fmt in range(8):
        s["manifest_fmt_%d" % fmt] = world([driver("v7", manifest=(fmt, gen_api(), 0))])
    for form in range(4):
        for minor in (0, 1, 3):
            s["manifest_api_form%d_minor%d" % (form, minor)] = \
                world([driver("v5", manifest=(1, gen_api(minor, form, 1), 0))])
    for opt, name in [(1, "arch64"), (2, "arch32"), (3, "arch_bad"), (4, "portability_false"),
                      (8, "portability_true"), (12, "portability_string"), (0x10, "unknown_key"),
                      (0x20, "duplicate_library_path"), (0x40, "no_library_path"),
                      (0x80, "icd_is_array")]:
        s["manifest_%s" % name] = world([driver("v7", manifest=(1, gen_api(), opt))])
    # raw manifests (parser in context)
    raws = {
        "v100": manifest_json("1.0.0", "1.0.0"),
        "v101_arch_port": manifest_json("1.0.1", "1.2.0",
                                        ', "library_arch": "64", "is_portability_driver": false'),
        "unknown_version": manifest_json("1.1.0", "1.3.0"),
        "variant_api": manifest_json("1.0.1", "1.1.3.0"),
        "major2_api": manifest_json("1.0.1", "2.0.0"),
        "truncated": manifest_json()[:40],
        "not_object": b'["@LIB@"]',
        "wrong_types": b'{"file_format_version": 1, "ICD": {"library_path": 5, "api_version": []}}',
        "empty_library_path": b'{"file_format_version": "1.0.0", "ICD": {"library_path": "", "api_version": "1.0.0"}}',
        "bom_and_comment": b'\xef\xbb\xbf' + manifest_json(),
        "deep": b'{"file_format_version": "1.0.0", "x": ' + b'[' * 200 + b']' * 200
                + b', "ICD": {"library_path": "@LIB@", "api_version": "1.0.0"}}',
        "case_keys": b'{"File_Format_Version": "1.0.0", "icd": {"Library_Path": "@LIB@", "API_version": "1.0.0"}}',
        "duplicate_icd": b'{"file_format_version": "1.0.0", "ICD": {"library_path": "@LIB@", "api_version": "1.3.0"}, "ICD": 7}',
        "nul_in_string": b'{"file_format_version": "1.0.0", "ICD": {"library_path": "@LIB@\\u0000x", "api_version": "1.3.0"}}',
        "empty": b"",
    }
    for name, body in raws.items():
        s["raw_manifest_%s" % name] = world([driver("v7", raw=body)])
    # misbehaviours, at interface 7 and at interface 4 / 1
    for m in MISBEHAVE:
        for v in ("v7", "v4_gpdpa", "v1"):
            s["misbehave_%s_%s" % (m, v)] = world(
                [driver(v, sc=scenario(misbehave=(m,), pds=((3, 1, 2), (1, 0, 1)))),
                 driver("v7_exports", stem=1)], exts=("VK_KHR_portability_enumeration",))
    # negotiation outcomes
    for v in ("v2", "v5_gpdpa", "v7", "v7_exports"):
        for res in ("INCOMPATIBLE_DRIVER", "INITIALIZATION_FAILED", "EVENT_SET"):
            s["negotiate_%s_%s" % (v, res)] = world([driver(v, sc=scenario(negotiate_result=res)),
                                                     driver("v7", stem=2)])
        for rv in (0, 3, 8, 9):
            s["report_version_%d_%s" % (rv, v)] = world([driver(v, sc=scenario(report_version=rv))])
        s["interface_range_high_%s" % v] = world([driver(v, sc=scenario(if_min=8, if_max=8))])
        s["interface_min_gt_max_%s" % v] = world([driver(v, sc=scenario(if_min=6, if_max=2))])
    # injected results
    for cmd in INJECT_CMDS:
        if cmd in OPEN_CRASH_COMMANDS:
            continue
        for res in ("INITIALIZATION_FAILED", "OUT_OF_HOST_MEMORY", "INCOMPLETE"):
            s["inject_%s_%s" % (cmd, res)] = world(
                [driver("v7", sc=scenario(inject=((cmd, res),))), driver("v5_gpdpa", stem=3)],
                exts=("VK_EXT_debug_utils",), app_messenger=True)
    # LDP_LOADER_7: 1.0 drivers and an application asking for 1.3
    s["driver_1_0_manifest"] = world([driver("v7", manifest=(1, gen_api(0), 0))], api=4)
    s["driver_1_0_eiv"] = world([driver("v7", manifest=(1, gen_api(3), 0), sc=scenario(api=(0, False)))], api=4)
    s["driver_hidden_eiv"] = world([driver("v7", manifest=(1, gen_api(2), 0), sc=scenario(hide_eiv=True))], api=4)
    s["driver_eiv_fails"] = world([driver("v4", sc=scenario(inject=(("vkEnumerateInstanceVersion", "INITIALIZATION_FAILED"),)))], api=3)
    s["driver_weird_eiv"] = world([driver("v7", sc=scenario(api="weird"))], api=4)
    s["app_api_raw"] = world([driver("v7")], api_raw=0x00401000)
    s["app_api_variant"] = world([driver("v7", manifest=(1, gen_api(0), 0))], api_raw=(1 << 29) | (1 << 22))
    s["app_api_1_4"] = world([driver("v7"), driver("v2", stem=4, manifest=(1, gen_api(0), 0))], api=5)
    # LDP_LOADER_9: extensions
    s["extensions_mixed"] = world(
        [driver("v7", sc=scenario(inst_exts=INST_EXTS[:4])),
         driver("v6", stem=1, sc=scenario(inst_exts=("VK_KHR_surface", "VK_EXT_debug_report"))),
         driver("v1", stem=2, sc=scenario(inst_exts=()))],
        exts=("VK_KHR_surface", "VK_KHR_xcb_surface", "VK_EXT_debug_utils", "VK_EXT_debug_report",
              "VK_KHR_get_physical_device_properties2"))
    s["extension_missing"] = world([driver("v7")], exts=("VK_KHR_wayland_surface",))
    s["extension_unpublished"] = world(
        [driver("v7", sc=scenario(misbehave=("unpublished_extension",)))],
        exts=("VK_MOCK_unpublished_extension",))
    s["extension_raw_name"] = world([driver("v7")], exts=("VK_EXT_fuzz_" + "x" * 240,))
    # LDP_LOADER_12: layer names must not reach drivers
    s["eiep_layer_name"] = world([driver("v7")], eiep_layer="VK_LAYER_KHRONOS_validation")
    s["devext_layer_name"] = world([driver("v7")], devext_layer=True, lookup="VK_LAYER_fuzz")
    s["app_layers"] = world([driver("v7")], layers=("VK_LAYER_fuzz", "VK_LAYER_fuzz"))
    # portability
    for flag in (False, True):
        for ext in (False, True):
            s["portability_flag%d_ext%d" % (flag, ext)] = world(
                [driver("v7", manifest=(1, gen_api(), 8),
                        sc=scenario(inst_exts=("VK_KHR_portability_enumeration",))),
                 driver("v5", stem=5)] if ext else
                [driver("v7", manifest=(1, gen_api(), 8))],
                portability_flag=flag, exts=("VK_KHR_portability_enumeration",) if ext else ())
    # environment
    s["env_select"] = world([driver("v7", stem=1), driver("v7", stem=2)],
                            env=(("VK_LOADER_DRIVERS_SELECT", "raw", "*intel*"),))
    s["env_disable_all"] = world([driver("v7", stem=1)], env=(("VK_LOADER_DRIVERS_DISABLE", "raw", "~all~"),))
    s["env_disable_select"] = world([driver("v7", stem=1), driver("v6", stem=3)],
                                    env=(("VK_LOADER_DRIVERS_DISABLE", "raw", "~all~"),
                                         ("VK_LOADER_DRIVERS_SELECT", "raw", "lvp*,MOCK*")))
    s["env_driver_files_empty"] = world([driver("v7", location=4)], env=(("VK_DRIVER_FILES", "empty", None),))
    s["env_icd_filenames_and_driver_files"] = world([driver("v7", location=0), driver("v7", location=2, stem=1)])
    s["env_add_with_override"] = world([driver("v7", location=0), driver("v6", location=3, stem=1)])
    s["env_unset_home_xdg"] = world([driver("v7", location=7)],
                                    env=(("XDG_CONFIG_HOME", "unset", None), ("HOME", "unset", None),
                                         ("XDG_DATA_DIRS", "empty", None)))
    s["env_xdg_data_home"] = world([driver("v7", location=7)],
                                   env=(("XDG_DATA_HOME", "raw", "@W@/home/.local/share"),))
    s["env_locations_list"] = world([driver("v7", location=5), driver("v5", location=6, stem=1)],
                                    env=(("VK_DRIVER_FILES", "locations", (5, 6)),))
    s["env_raw_paths"] = world([driver("v7", location=1)],
                               env=(("VK_DRIVER_FILES", "raw", "@W@/env/dir::@W@/env/dir/:/nonexistent:@W@"),))
    s["env_relative_chdir"] = world([driver("v7", location=0, libform=1)], chdir=True,
                                    env=(("VK_ADD_DRIVER_FILES", "raw", "w/env/files"),))
    # LDP_LOADER_13: elevated worlds, drivers everywhere
    s["elevated_everywhere"] = world([driver("v7", location=i) for i in range(6)], elevated=True)
    s["elevated_home"] = world([driver("v7", location=7), driver("v5", location=4, stem=1)],
                               elevated=True, env=(("XDG_DATA_DIRS", "raw", "@W@/xdg_data_dirs/a"),))
    s["elevated_bare"] = world([driver("v7", location=6, libform=2)], elevated=True)
    # allocation callbacks, with and without failure injection
    s["allocator"] = world([driver("v7"), driver("v5_gpdpa", stem=1)], allocator=True)
    for k in (1, 2, 3, 5, 8, 13, 21, 40):
        s["allocator_fail_%d" % k] = world([driver("v7"), driver("v4_gpdpa", stem=1)], allocator=True,
                                           alloc_fail_at=k, dbg_utils=True, exts=("VK_EXT_debug_utils",))
    # debug messengers
    s["debug_pnext"] = world([driver("v7", raw=b"{")], dbg_utils=True, dbg_report=True,
                             exts=("VK_EXT_debug_utils", "VK_EXT_debug_report"), msg=0xff)
    s["debug_app_messenger"] = world([driver("v7", sc=scenario(inst_exts=("VK_EXT_debug_utils",)))],
                                     exts=("VK_EXT_debug_utils",), app_messenger=True, msg=0x3f)
    # many drivers, devices, groups, short arrays
    s["six_drivers"] = world([driver(v, location=i % 8, stem=i, sc=scenario(pds=((i & 3, i, 2),) * (1 + i % 3)))
                              for i, v in enumerate(("v0", "v1", "v3_gpdpa", "v5_vkexports", "v7", "v7_nogpdpa"))],
                             groups=True, pd_short=True, eiep_short=True, pd_choice=3)
    s["groups"] = world([driver("v7", sc=scenario(groups=True, pds=((3, 0, 1),) * 4))], api=4)
    s["zero_devices"] = world([driver("v7", sc=scenario(pds=(), misbehave=("crash_with_zero_devices",))),
                               driver("v5", stem=1)])
    s["device_extensions"] = world([driver("v7", sc=scenario(pds=((3, 3, 2),)))],
                                   dev_exts=("VK_KHR_swapchain", "VK_KHR_maintenance1"), queue_count=2)
    s["device_bad_queue"] = world([driver("v7")], queue_family=5, queue_count=3)
    s["unknown_functions"] = world([driver("v7", sc=scenario(dev_funcs=3, pd_funcs=3)),
                                    driver("v5_gpdpa", stem=1, sc=scenario(pd_funcs=2))],
                                   unknown_pd=True, unknown_dev=True, lookup="vkFuzzPhysDevFunc1")
    s["record_lookups"] = world([driver("v7", sc=scenario(record_lookups=True)),
                                 driver("v1", stem=1, sc=scenario(record_lookups=True))])
    s["same_library_twice"] = world([driver("v7", raw=manifest_json()),
                                     driver("v7", stem=1, raw=b'{"file_format_version": "1.0.0", "ICD": '
                                            b'{"library_path": "libvkl_fuzz_drv0.so", "api_version": "1.0.0"}}')])
    s["system_library_refused"] = world([driver("v7", raw=b'{"file_format_version": "1.0.0", "ICD": '
                                                 b'{"library_path": "libvulkan.so.1", "api_version": "1.3.0"}}')])
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "loader_world_fuzzer")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(seeds()), out))


if __name__ == "__main__":
    main()
