#!/usr/bin/env python3
"""Writes the loader_world_fuzzer seed corpus: worlds encoded in the framing of fuzz/FRAMING.md.

    python3 fuzz/tools/world_seeds.py fuzz/corpus/loader_world_fuzzer

Standard library only. The encoder below is the second implementation of the framing (the first is
world_decode() in fuzz/world/world_decode.c); keep both and FRAMING.md in sync. Seeds are named after what
they exercise; re-running the script rewrites them (other files in the directory are left alone).
"""
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "fuzz", "oss-fuzz"))
from mock_variants import load_table  # noqa: E402  (mock_variants.py: the .bzl tables read as Python)


def world_icd_variants():
    """The mock driver variants the world uses, in index order: the rows of mock_icd/variants.bzl, in
    its table's order, that fuzz/world/world.c's world_icd_row() keeps (usable through a manifest:
    vk_icdGetInstanceProcAddr exported, or an interface-0 driver exporting vkGetInstanceProcAddr
    without negotiation; not the -Bsymbolic rows)."""
    table = load_table(os.path.join(ROOT, "mock_icd", "variants.bzl"))["MOCK_ICD_VARIANTS"]
    return [name for name, r in table.items()
            if (r.icd_gipa or (r.vk == "v0" and not r.negotiate)) and not r.symbolic]


def world_layer_variants():
    """The mock layer variants the world uses, in index order: the rows of mock_layers/variants.bzl
    that world.c's world_layer_row() keeps (not the chassis rows, not those without
    vkGetDeviceProcAddr), sorted by name as mock_variants.h lists them."""
    env = load_table(os.path.join(ROOT, "mock_layers", "variants.bzl"))
    rows = env.get("ALL_MOCK_LAYER_VARIANTS", env["MOCK_LAYER_VARIANTS"])
    return [name for name in sorted(rows)
            if not getattr(rows[name], "chassis", False) and getattr(rows[name], "gdpa", True)]


# The framing's variant indexes (fuzz/FRAMING.md): read from the ONE table of each, as the world
# builds its own (fuzz/world/world.c, through the generated mock_variants.h), never copied here.
VARIANTS = world_icd_variants()
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


LAYER_VARIANTS = world_layer_variants()
LAYER_LOCATIONS = ["VK_LAYER_PATH", "VK_ADD_LAYER_PATH", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS",
                   "XDG_DATA_DIRS", "HOME-local-share"]
LAYER_NAMES = ["VK_LAYER_FUZZ_a", "VK_LAYER_FUZZ_b", "VK_LAYER_FUZZ_c", "VK_LAYER_FUZZ_d"]
LAYER_FORMATS = ["1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.2.1", "1.0"]
LAYER_MISBEHAVE = ["fail_negotiation", "negotiate_version", "no_advance_link", "clobber_instance",
                   "clobber_device", "no_call_down", "fail_unknown_extensions",
                   "return_disabled_functions"]


def layer(variant="v2_gpdpa", location=2, libform=0, implicit=False, meta=False, override=False,
          enable_env=False, disable_env=False, set_enable=False, set_disable=False, odd=False,
          fmt="1.1.2", array=False, api_minor=3, pre_instance=False, renames=False, name=0,
          components=(), blacklist=(), misbehave=(), negotiate_version=0, wrap=False,
          pre_add_ext=False, pre_add_layer=False, pre_no_call_down=False):
    """One layer slot (FRAMING.md "layers"). name/components/blacklist: LAYER_NAMES indexes."""
    out = u8(LAYER_VARIANTS.index(variant))
    out += u8(location | (libform << 3))
    out += u8((1 if implicit else 0) | (2 if meta else 0) | (4 if override else 0)
              | (8 if enable_env else 0) | (16 if disable_env else 0) | (32 if set_enable else 0)
              | (64 if set_disable else 0) | (128 if odd else 0))
    out += u8(LAYER_FORMATS.index(fmt) | (8 if array else 0) | (api_minor << 4)
              | (64 if pre_instance else 0) | (128 if renames else 0))
    out += u8(name)
    out += u8(sum(1 << i for i in components) | (sum(1 << i for i in blacklist) << 4))
    out += u8(sum(1 << LAYER_MISBEHAVE.index(m) for m in misbehave))
    out += u8((1 if wrap else 0) | (4 if pre_add_ext else 0) | (8 if pre_add_layer else 0)
              | (16 if pre_no_call_down else 0) | (negotiate_version << 6))
    return out


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
          dev_exts=(), alloc_fail_at=0, msg=0, lookup="", wlayers=(), mfail=(), widen=None):
    """env: (name, mode, value): mode "unset" | "empty" | "locations" (value: location indexes)
    | "raw" (value: string, @W@ = the world directory). mfail: (call, nth, from_on) entries
    (FRAMING.md "mfail"; call: a CALLS name or "any"); widen: widen(...) bytes."""
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
    if wlayers or mfail or widen is not None:
        # appended only when present: older seeds end here and decode to no layers
        out += u8(len(wlayers))
        for lay in wlayers:
            out += lay
    if mfail or widen is not None:
        out += u8(len(mfail))
        for call, nth, from_on in mfail:
            c = 15 if call == "any" else CALLS.index(call)
            out += u8(c | (0x80 if from_on else 0)) + u16(nth)
    if widen is not None:
        out += widen
    return out


# FRAMING.md "mfail": the application's loader calls (enum w_call in fuzz/world/world.h)
CALLS = ["vkEnumerateInstanceExtensionProperties", "vkEnumerateInstanceVersion",
         "vkEnumerateInstanceLayerProperties", "vkCreateInstance", "vkEnumeratePhysicalDevices",
         "vkEnumeratePhysicalDeviceGroups", "vkEnumerateDeviceExtensionProperties",
         "vkEnumerateDeviceLayerProperties", "vkCreateDevice", "vkDestroyDevice", "vkDestroyInstance",
         "messenger", "proc_addr", "surface", "other"]
FILE_KINDS = ["regular", "fifo", "loop", "dir", "dev_zero", "dangling", "link", "empty"]
META_SHAPES = ["chain", "ladder", "cycle", "masks"]


def widen(clones=0, ftypes=(), metas=0, shape="chain", implicit_metas=False, meta_location=2,
          leaf=None, masks=(), nuls=(), surface=False):
    """FRAMING.md "widen". ftypes: (layer?, library?, slot, kind); nuls: (layer?, slot, where 1-3);
    leaf: LAYER_NAMES index the last meta also names."""
    out = u8(clones)
    out += u8(len(ftypes))
    for is_layer, is_lib, slot, kind in ftypes:
        out += u8((0x80 if is_layer else 0) | (0x40 if is_lib else 0) | slot) + u8(FILE_KINDS.index(kind))
    out += u8(metas)
    if metas:
        out += u8(META_SHAPES.index(shape) | (4 if implicit_metas else 0) | (meta_location << 3))
        out += u8(leaf if leaf is not None else 0xff)
        if shape == "masks":
            for m in masks:
                out += u8(m)
    out += u8(len(nuls))
    for is_layer, slot, where in nuls:
        out += u8((0x80 if is_layer else 0) | (where << 4) | slot)
    out += u8(1 if surface else 0)
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
    layer_seeds(s)
    return s


def layer_seeds(s):
    """Worlds with mock layers (LLP_LOADER_3/5/6/7/13 in the oracle)."""
    drv = [driver("v7"), driver("v5_gpdpa", stem=1)]
    # every variant, explicit (enabled by the application) and implicit
    for v in LAYER_VARIANTS:
        ren = v.endswith("_renamed")
        s["layer_explicit_%s" % v] = world(drv, layers=(LAYER_NAMES[0],),
                                           wlayers=[layer(v, renames=ren)])
        s["layer_implicit_%s" % v] = world(drv, wlayers=[layer(v, implicit=True, disable_env=True,
                                                               renames=ren, name=1)])
    # every location x library form, both kinds
    for loc in range(len(LAYER_LOCATIONS)):
        for lf in range(4):
            for imp in (False, True):
                s["layer_%s_%s_%s" % ("implicit" if imp else "explicit", LAYER_LOCATIONS[loc],
                                      LIBFORMS[lf])] = world(
                    [driver("v7")], layers=() if imp else (LAYER_NAMES[2],),
                    wlayers=[layer("v2_all", location=loc, libform=lf, implicit=imp,
                                   disable_env=imp, name=2)])
    s["layer_chdir_relative"] = world([driver("v7", libform=1)], chdir=True, layers=(LAYER_NAMES[0],),
                                      wlayers=[layer(location=0, libform=1)])
    # file format versions, "layers" arrays, API versions
    for i, f in enumerate(LAYER_FORMATS):
        s["layer_format_%s" % f] = world(drv, layers=(LAYER_NAMES[0],),
                                         wlayers=[layer(fmt=f, array=(i % 2 == 1), api_minor=i % 4)])
    s["layer_array_two"] = world(drv, layers=(LAYER_NAMES[0], LAYER_NAMES[1]),
                                 wlayers=[layer(fmt="1.0.1", array=True),
                                          layer("v2_all", fmt="1.0.1", array=True, name=1)])
    # enable / disable environment (LLP_LOADER_6/7)
    for en in (False, True):
        for dis in (False, True):
            for se in (False, True):
                for sd in (False, True):
                    if (se and not en) or (sd and not dis):
                        continue
                    for odd in (False, True):
                        s["layer_env_en%d_dis%d_set%d%d_odd%d" % (en, dis, se, sd, odd)] = world(
                            drv, wlayers=[layer("v2_gpdpa", implicit=True, enable_env=en,
                                                disable_env=dis, set_enable=se, set_disable=sd,
                                                odd=odd)])
    s["layer_env_implicit_no_disable"] = world(drv, wlayers=[layer(implicit=True)])
    # duplicates (LLP_LOADER_3): the same layer by the application twice, VK_INSTANCE_LAYERS,
    # VK_LOADER_LAYERS_ENABLE, an implicit one enabled again, two manifests with one name
    s["layer_dup_app_twice"] = world(drv, layers=(LAYER_NAMES[0],) * 3, wlayers=[layer()])
    s["layer_dup_instance_layers"] = world(
        drv, layers=(LAYER_NAMES[0],), wlayers=[layer(), layer("v2_all", name=1)],
        env=(("VK_INSTANCE_LAYERS", "raw", "VK_LAYER_FUZZ_a:VK_LAYER_FUZZ_b:VK_LAYER_FUZZ_a"),))
    s["layer_dup_enable_filter"] = world(
        drv, layers=(LAYER_NAMES[1],), wlayers=[layer(), layer("v2_all", name=1)],
        env=(("VK_LOADER_LAYERS_ENABLE", "raw", "*FUZZ*"),))
    s["layer_dup_implicit_and_app"] = world(drv, layers=(LAYER_NAMES[0],),
                                            wlayers=[layer(implicit=True, disable_env=True)])
    s["layer_dup_same_name"] = world(drv, layers=(LAYER_NAMES[0],),
                                     wlayers=[layer(location=2), layer("v2_all", location=4),
                                              layer("v1", location=5, implicit=True, disable_env=True)])
    s["layer_dup_same_name_paths"] = world(drv, layers=(LAYER_NAMES[0],),
                                           wlayers=[layer(location=0), layer("v2_all", location=1)])
    # filters
    s["layer_filter_disable_all"] = world(
        drv, layers=(LAYER_NAMES[0],), wlayers=[layer(), layer(implicit=True, disable_env=True, name=1)],
        env=(("VK_LOADER_LAYERS_DISABLE", "raw", "~all~"),))
    s["layer_filter_disable_implicit_allow"] = world(
        drv, wlayers=[layer(implicit=True, disable_env=True), layer(implicit=True, disable_env=True, name=1)],
        env=(("VK_LOADER_LAYERS_DISABLE", "raw", "~implicit~"),
             ("VK_LOADER_LAYERS_ALLOW", "raw", "VK_LAYER_FUZZ_b")))
    s["layer_not_present"] = world(drv, layers=("VK_LAYER_FUZZ_missing",), wlayers=[layer()])
    # meta layers and the override layer
    s["layer_meta"] = world(drv, layers=(LAYER_NAMES[3],),
                            wlayers=[layer(), layer("v2_all", name=1),
                                     layer(meta=True, name=3, components=(0, 1))])
    s["layer_meta_implicit"] = world(drv, wlayers=[layer(), layer("v2_all", name=1),
                                                   layer(meta=True, implicit=True, disable_env=True,
                                                         name=3, components=(0, 1))])
    s["layer_meta_self"] = world(drv, layers=(LAYER_NAMES[3],),
                                 wlayers=[layer(meta=True, name=3, components=(3,))])
    s["layer_meta_missing_component"] = world(drv, layers=(LAYER_NAMES[3],),
                                               wlayers=[layer(meta=True, name=3, components=(2,))])
    s["layer_meta_old_format"] = world(drv, layers=(LAYER_NAMES[3],),
                                       wlayers=[layer(), layer(meta=True, name=3, components=(0,),
                                                               fmt="1.0.0")])
    s["layer_override"] = world(drv, wlayers=[layer(), layer("v2_all", name=1),
                                              layer(override=True, disable_env=True, components=(0,),
                                                    blacklist=(1,))],
                                layers=(LAYER_NAMES[1],))
    s["layer_override_disabled"] = world(drv, wlayers=[layer(), layer(override=True, disable_env=True,
                                                                      set_disable=True,
                                                                      components=(0,))])
    s["layer_override_component_disable"] = world(
        drv, wlayers=[layer(implicit=True, disable_env=True, set_disable=True),
                      layer(override=True, disable_env=True, components=(0,))])
    # pre-instance functions
    for nc in (False, True):
        s["layer_pre_instance_nocalldown%d" % nc] = world(
            drv, eiep_short=True,
            wlayers=[layer("v2_all", implicit=True, disable_env=True, pre_instance=True,
                           pre_add_ext=True, pre_add_layer=True, pre_no_call_down=nc)])
    s["layer_pre_instance_explicit"] = world(drv, layers=(LAYER_NAMES[0],),
                                             wlayers=[layer(pre_instance=True, pre_add_ext=True)])
    # misbehaviours (LLP_LOADER_5 and the chain), alone, over a good layer, and implicit
    for m in LAYER_MISBEHAVE:
        nv = 3 if m == "negotiate_version" else 0
        s["layer_misbehave_%s" % m] = world(
            drv, layers=(LAYER_NAMES[0], LAYER_NAMES[1]), exts=("VK_EXT_debug_utils",),
            wlayers=[layer("v2", misbehave=(m,), negotiate_version=nv), layer("v2_all", name=1)])
        s["layer_misbehave_%s_implicit" % m] = world(
            drv, layers=(LAYER_NAMES[1],), device=True,
            wlayers=[layer("v2_gpdpa", implicit=True, disable_env=True, misbehave=(m,),
                           negotiate_version=nv), layer("v2_gpdpa_export", name=1)])
    # a layer that overwrote *pInstance above one that answers without calling down, and a layer
    # above one that does both (regressions mock_layer_above_clobber_no_call_down_*)
    s["layer_clobber_above_no_call_down"] = world(
        drv, layers=(LAYER_NAMES[1],),
        wlayers=[layer("v2", implicit=True, disable_env=True, misbehave=("clobber_instance",)),
                 layer("v2_all", name=1, misbehave=("no_call_down",))])
    s["layer_above_clobber_no_call_down"] = world(
        drv, layers=(LAYER_NAMES[0], LAYER_NAMES[1]),
        wlayers=[layer("v2_all"), layer("v2", name=1, misbehave=("clobber_instance", "no_call_down"))])
    for nv in range(4):
        s["layer_negotiate_version_%d" % nv] = world(
            drv, layers=(LAYER_NAMES[0],),
            wlayers=[layer("v2_all", misbehave=("negotiate_version",), negotiate_version=nv)])
    s["layer_fail_negotiation_with_gipa"] = world(
        drv, layers=(LAYER_NAMES[0],), wlayers=[layer("v2_all", misbehave=("fail_negotiation",))])
    # handle wrapping, devices, groups, allocators
    s["layer_wrap_handles"] = world(
        [driver("v7", sc=scenario(groups=True, pds=((3, 3, 2),) * 2))], layers=(LAYER_NAMES[0],),
        groups=True, dev_exts=("VK_KHR_swapchain",), wlayers=[layer("v2_all", wrap=True)])
    s["layer_wrap_two"] = world(drv, layers=(LAYER_NAMES[0], LAYER_NAMES[1]), allocator=True,
                                wlayers=[layer("v2_all", wrap=True), layer(wrap=True, name=1)])
    for k in (1, 4, 9, 17):
        s["layer_allocator_fail_%d" % k] = world(drv, layers=(LAYER_NAMES[0],), allocator=True,
                                                 alloc_fail_at=k, wlayers=[layer("v2_all", wrap=True)])
    # elevated: every layer location is a user path
    s["layer_elevated"] = world(drv, elevated=True, layers=(LAYER_NAMES[0],),
                                env=(("VK_INSTANCE_LAYERS", "raw", "VK_LAYER_FUZZ_b"),),
                                wlayers=[layer(location=i % 6, implicit=(i % 2 == 1), disable_env=True,
                                               name=i % 4) for i in range(4)])
    s["layer_elevated_paths"] = world(drv, elevated=True, layers=(LAYER_NAMES[0], LAYER_NAMES[1]),
                                      wlayers=[layer(location=0), layer(location=1, implicit=True,
                                                                        disable_env=True, name=1)])
    # four layers, everything at once
    s["layer_four"] = world(
        [driver("v7"), driver("v1", stem=1), driver("v5_gpdpa", stem=2)],
        layers=(LAYER_NAMES[0], LAYER_NAMES[2]), exts=("VK_EXT_debug_utils",), dbg_utils=True,
        wlayers=[layer("v2_all", wrap=True), layer("v1", implicit=True, disable_env=True, name=1),
                 layer("v2_gpdpa_export", location=4, name=2),
                 layer("v0", location=5, implicit=True, enable_env=True, set_enable=True,
                       disable_env=True, name=3)])


# Seeds kept as regressions instead (fuzz/regressions/loader_world_fuzzer/cjson_oom_read_as_syntax_error_*,
# fuzz/regressions/README.md): cJSON's allocation failure once read as a syntax error.
OPEN_MFAIL_SEEDS = {"mfail_any_17", "mfail_vkEnumerateInstanceExtensionProperties_17"}


def mfail_seeds(s):
    """Allocation failures of the loader (malloc and friends) and the widened worlds."""
    drv = [driver("v7"), driver("v5_gpdpa", stem=1)]
    for call in ("vkEnumerateInstanceExtensionProperties", "vkEnumerateInstanceVersion",
                 "vkEnumerateInstanceLayerProperties", "vkCreateInstance", "vkEnumeratePhysicalDevices",
                 "vkCreateDevice", "any"):
        for nth in (1, 2, 5, 17, 60):
            s["mfail_%s_%d" % (call, nth)] = world(drv, mfail=[(call, nth, False)], widen=widen())
        s["mfail_%s_from_3" % call] = world(drv, mfail=[(call, 3, True)], widen=widen())
    for name in OPEN_MFAIL_SEEDS:  # replayed from fuzz/regressions/loader_world_fuzzer/
        s.pop(name, None)
    s["mfail_layers_create"] = world(drv, layers=(LAYER_NAMES[0],),
                                     wlayers=[layer("v2_all"), layer(implicit=True, disable_env=True, name=1)],
                                     mfail=[("vkCreateInstance", 9, False)], widen=widen())
    s["mfail_with_allocator"] = world(drv, allocator=True, alloc_fail_at=3,
                                      mfail=[("vkEnumeratePhysicalDevices", 1, False)], widen=widen())
    # file kinds of driver and layer manifests and libraries
    for kind in FILE_KINDS[1:]:
        for loc in (0, 1, 4):
            s["file_%s_driver_manifest_%s" % (kind, LOCATIONS[loc])] = world(
                [driver("v7", location=loc), driver("v7", location=loc, stem=1)],
                widen=widen(ftypes=[(False, False, 0, kind)]))
        s["file_%s_driver_library" % kind] = world(
            [driver("v7"), driver("v7", stem=1)], widen=widen(ftypes=[(False, True, 0, kind)]))
        s["file_%s_layer_manifest" % kind] = world(
            [driver("v7")], layers=(LAYER_NAMES[0],), wlayers=[layer("v2_all")],
            widen=widen(ftypes=[(True, False, 0, kind)]))
        s["file_%s_layer_library" % kind] = world(
            [driver("v7")], layers=(LAYER_NAMES[0],), wlayers=[layer("v2_all", implicit=True, disable_env=True)],
            widen=widen(ftypes=[(True, True, 0, kind)]))
    # \u0000 escapes
    for where in (1, 2, 3):
        s["nul_driver_%d" % where] = world([driver("v7"), driver("v6", stem=1)], widen=widen(nuls=[(False, 0, where)]))
        s["nul_layer_%d" % where] = world([driver("v7")], layers=(LAYER_NAMES[0],), wlayers=[layer("v2_all")],
                                          widen=widen(nuls=[(True, 0, where)]))
    # more drivers: clones of the decoded ones
    s["clones_six"] = world([driver("v7"), driver("v4_gpdpa", location=4, stem=1)], widen=widen(clones=6))
    # meta-layer graphs: chains, ladders (exponentially many paths), cycles, masks
    for shape in META_SHAPES:
        for n in (4, 12, 32):
            s["metas_%s_%d" % (shape, n)] = world(
                [driver("v7")], layers=("VK_LAYER_FUZZ_m00",), wlayers=[layer("v2_all")],
                widen=widen(metas=n, shape=shape, leaf=0, masks=[0x81] * n))
    s["metas_implicit_ladder"] = world([driver("v7")], wlayers=[layer("v2_all")],
                                       widen=widen(metas=24, shape="ladder", implicit_metas=True, leaf=0))
    # LDP_LOADER_10/11: a surface queried on every device of drivers with and without WSI
    s["surface_two_drivers"] = world(
        [driver("v7", sc=scenario(inst_exts=("VK_KHR_surface", "VK_KHR_xcb_surface"))),
         driver("v2", stem=1, sc=scenario(inst_exts=("VK_KHR_surface", "VK_KHR_xcb_surface")))],
        widen=widen(surface=True))
    # LDP_LOADER_6: only Vulkan 1.0 drivers at interface >= 5, the application asks for 1.1
    s["api_1_1_on_1_0_drivers"] = world(
        [driver("v7", manifest=(1, gen_api(0), 0), sc=scenario(api=(0, False)))], api=2)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "loader_world_fuzzer")
    os.makedirs(out, exist_ok=True)
    all_seeds = seeds()
    mfail_seeds(all_seeds)
    for name, data in sorted(all_seeds.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(all_seeds), out))


if __name__ == "__main__":
    main()
