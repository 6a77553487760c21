"""The ONE table of mock ICD export variants.

Each row becomes `//mock_icd:libmock_icd_<variant>.so`, built from //mock_icd:mock_icd_srcs with compile-time
defines, linked with `-Wl,--no-undefined` and a generated version script that exports exactly the
row's symbols plus the mock_icd_ctl_* functions. `mock_icd_exports_test` checks every built
library's dynamic symbol table against the same data.

Row fields:
  max_interface  highest loader/driver interface version the build negotiates (the scenario's
                 "interface" range narrows it at run time)
  negotiate      exports vk_icdNegotiateLoaderICDInterfaceVersion
  icd_gipa       exports vk_icdGetInstanceProcAddr
  gpdpa          has vk_icdGetPhysicalDeviceProcAddr ("export": exported, "gipa": only through
                 vk_icdGetInstanceProcAddr(NULL, name) (interface 7), None: absent)
  vk             exported vk* symbols: None, "v0" (the three a v0 driver must export) or "all"
                 (the "vkexports" flavour, VK_EXPORTS_ALL)
  symbolic       linked with -Bsymbolic (DT_SYMBOLIC / DF_SYMBOLIC): the exported vk* names bind to
                 the library's own definitions (ldp-check's LINT_VK_EXPORTS passing case)
At interface 7 vk_icdGetInstanceProcAddr(NULL, name) also answers the negotiate function.
An interface-7 row without icd_gipa exports its vk_icdGetInstanceProcAddr under the name
mock_icd_direct_GetInstanceProcAddr, which no loader looks for: such a driver is usable only
through VK_LUNARG_direct_driver_loading (an application passes the pointer), which proves the
loader takes everything from that pointer and nothing from dlsym.
"""

load("//bazel:copts.bzl", "C_COPTS")

VK_EXPORTS_V0 = [
    "vkCreateInstance",
    "vkEnumerateInstanceExtensionProperties",
    "vkGetInstanceProcAddr",
]

VK_EXPORTS_ALL = VK_EXPORTS_V0 + [
    "vkCreateDevice",
    "vkDestroyDevice",
    "vkDestroyInstance",
    "vkEnumerateDeviceExtensionProperties",
    "vkEnumeratePhysicalDevices",
    "vkGetDeviceProcAddr",
    "vkGetPhysicalDeviceProperties",
]

CTL_EXPORTS = [
    "mock_icd_ctl_load_scenario",
    "mock_icd_ctl_record_count",
    "mock_icd_ctl_record_get",
    "mock_icd_ctl_reset",
    "mock_icd_ctl_set_result",
]

def _row(max_interface, negotiate = True, icd_gipa = True, gpdpa = None, vk = None, symbolic = False):
    return struct(
        max_interface = max_interface,
        negotiate = negotiate,
        icd_gipa = icd_gipa,
        gpdpa = gpdpa,
        vk = vk,
        symbolic = symbolic,
    )

def _table():
    t = {
        "v0": _row(0, negotiate = False, icd_gipa = False, vk = "v0"),
        "v1": _row(1, negotiate = False),
    }
    for n in range(2, 7):
        t["v%d" % n] = _row(n)
        t["v%d_gpdpa" % n] = _row(n, gpdpa = "export")
        t["v%d_vkexports" % n] = _row(n, vk = "all")
        t["v%d_gpdpa_vkexports" % n] = _row(n, gpdpa = "export", vk = "all")

    # Interface 7: by default only vk_icdGetInstanceProcAddr is exported; negotiate and GPDPA are
    # reachable through it.
    t["v7"] = _row(7, negotiate = False, gpdpa = "gipa")
    t["v7_nogpdpa"] = _row(7, negotiate = False)
    t["v7_exports"] = _row(7, gpdpa = "export")
    t["v7_vkexports"] = _row(7, negotiate = False, gpdpa = "gipa", vk = "all")
    t["v7_exports_vkexports"] = _row(7, gpdpa = "export", vk = "all")
    t["v7_vkexports_symbolic"] = _row(7, negotiate = False, gpdpa = "gipa", vk = "all", symbolic = True)
    # Only for VK_LUNARG_direct_driver_loading: no standard driver symbol at all (see above).
    t["v7_direct"] = _row(7, negotiate = False, icd_gipa = False, gpdpa = "gipa")

    # Broken export sets (ldp-check's LDP_DRIVER_3 proofs): negotiation exported without
    # vk_icdGetInstanceProcAddr (only the interface-0 exports beside it), and no driver entry point
    # at all.
    t["v2_nogipa"] = _row(2, icd_gipa = False, vk = "v0")
    t["none"] = _row(0, negotiate = False, icd_gipa = False)
    return t

MOCK_ICD_VARIANTS = _table()

def mock_icd_exports(variant):
    """Sorted list of the dynamic symbols `libmock_icd_<variant>.so` must export."""
    row = MOCK_ICD_VARIANTS[variant]
    syms = list(CTL_EXPORTS)
    if row.negotiate:
        syms.append("vk_icdNegotiateLoaderICDInterfaceVersion")
    if row.icd_gipa:
        syms.append("vk_icdGetInstanceProcAddr")
    elif row.max_interface >= 7:
        syms.append("mock_icd_direct_GetInstanceProcAddr")
    if row.gpdpa == "export":
        syms.append("vk_icdGetPhysicalDeviceProcAddr")
    if row.vk == "v0":
        syms += VK_EXPORTS_V0
    elif row.vk == "all":
        syms += VK_EXPORTS_ALL
    return sorted(syms)

def mock_icd_defines(row):
    """The compile-time -D flags of one variant row (also used by the fuzz builds, bazel/fuzz.bzl)."""
    vk = {None: 0, "v0": 1, "all": 2}[row.vk]
    return [
        "-DMOCK_ICD_MAX_INTERFACE=%d" % row.max_interface,
        "-DMOCK_ICD_EXPORT_NEGOTIATE=%d" % (1 if row.negotiate else 0),
        "-DMOCK_ICD_EXPORT_ICD_GIPA=%d" % (1 if row.icd_gipa else 0),
        "-DMOCK_ICD_HAS_GPDPA=%d" % (1 if row.gpdpa else 0),
        "-DMOCK_ICD_EXPORT_GPDPA=%d" % (1 if row.gpdpa == "export" else 0),
        "-DMOCK_ICD_EXPORT_VK=%d" % vk,
    ]

def mock_icd_library_label(variant):
    return ":libmock_icd_%s.so" % variant

def mock_icd_variants(srcs, deps):
    """Declares one shared library (and its version script) per row of the table."""
    for variant in sorted(MOCK_ICD_VARIANTS.keys()):
        row = MOCK_ICD_VARIANTS[variant]
        script = "libmock_icd_%s.lds" % variant
        native.genrule(
            name = "libmock_icd_%s_lds" % variant,
            outs = [script],
            cmd = "echo '{ global: %s; local: *; };' > $@" % "; ".join(mock_icd_exports(variant)),
        )
        native.cc_binary(
            name = "libmock_icd_%s.so" % variant,
            srcs = srcs,
            copts = C_COPTS + mock_icd_defines(row),
            linkshared = 1,
            linkopts = [
                "-Wl,--no-undefined",
                "-Wl,--as-needed",
                "-Wl,--version-script=$(location :%s)" % script,
            ] + (["-Wl,-Bsymbolic"] if row.symbolic else []),
            additional_linker_inputs = [":" + script],
            deps = deps,
        )

def mock_icd_all_libraries():
    return [mock_icd_library_label(v) for v in sorted(MOCK_ICD_VARIANTS.keys())]

def mock_icd_exports_test(name, script):
    """One sh_test checking `nm -D --defined-only` of every variant against the table."""
    args = []
    for variant in sorted(MOCK_ICD_VARIANTS.keys()):
        args += ["$(location %s)" % mock_icd_library_label(variant), ",".join(mock_icd_exports(variant))]
    native.sh_test(
        name = name,
        size = "small",
        srcs = [script],
        args = args,
        data = mock_icd_all_libraries(),
    )
