"""The ONE table of mock layer export variants.

Each row becomes `//mock_layers:libmock_layer_<variant>.so`, built from mock_layer*.c with
compile-time defines, linked with `-Wl,--no-undefined` and a generated version script exporting
exactly the row's symbols plus the mock_layer_ctl_* and pre-instance functions.
`//mock_layers:exports_test` checks every library's dynamic symbols against the same data.

Row fields:
  interface      highest layer interface version the build negotiates (0, 1, 2)
  negotiate      name of the exported negotiate function, or None
  gipa           (GIPA, GDPA) exported names, or None
  gpdpa          "export": exports vk_layerGetPhysicalDeviceProcAddr; "negotiate": only returned by
                 negotiation; None: no GPDPA at all
  introspection  exports the four v0 enumeration functions
  gdpa           False: negotiation gives no vkGetDeviceProcAddr (a layer left out of device chains,
                 as Mesa's device_select); requires gipa = None
  chassis        built from chassis_layer.c (the chassis-mode mock layer, README.md "Chassis mode")
                 instead of mock_layer*.c: no mock_layer_ctl_* or pre-instance functions
"""

load("//bazel:copts.bzl", "C_COPTS")

ALWAYS = [
    "mock_layer_ctl_load_scenario",
    "mock_layer_ctl_record_count",
    "mock_layer_ctl_record_get",
    "mock_layer_ctl_reset",
    "mock_layer_pre_EnumerateInstanceExtensionProperties",
    "mock_layer_pre_EnumerateInstanceLayerProperties",
    "mock_layer_pre_EnumerateInstanceVersion",
]

INTROSPECTION = [
    "vkEnumerateDeviceExtensionProperties",
    "vkEnumerateDeviceLayerProperties",
    "vkEnumerateInstanceExtensionProperties",
    "vkEnumerateInstanceLayerProperties",
]

STD = ("vkGetInstanceProcAddr", "vkGetDeviceProcAddr")
RENAMED = ("MockLayer_GetInstanceProcAddr", "MockLayer_GetDeviceProcAddr")
NEG = "vkNegotiateLoaderLayerInterfaceVersion"

def _row(interface, negotiate = None, gipa = None, gpdpa = None, introspection = False, chassis = False, gdpa = True):
    return struct(interface = interface, negotiate = negotiate, gipa = gipa, gpdpa = gpdpa, introspection = introspection,
                  chassis = chassis, gdpa = gdpa)

MOCK_LAYER_VARIANTS = {
    "v0": _row(0, gipa = STD, introspection = True),
    "v1": _row(1, gipa = STD),
    "v1_renamed": _row(1, gipa = RENAMED),
    "v2": _row(2, negotiate = NEG),
    "v2_gpdpa": _row(2, negotiate = NEG, gpdpa = "negotiate"),
    "v2_gpdpa_export": _row(2, negotiate = NEG, gpdpa = "export"),
    "v2_renamed": _row(2, negotiate = "MockLayer_Negotiate", gpdpa = "negotiate"),
    "v2_all": _row(2, negotiate = NEG, gipa = STD, gpdpa = "export", introspection = True),
    "v2_no_gdpa": _row(2, negotiate = NEG, gdpa = False),
}

# Rows built from chassis_layer.c (the chassis-mode mock layer). Kept apart from MOCK_LAYER_VARIANTS,
# which also lists what the fuzz builds compile from mock_layer*.c (//fuzz:fuzz_mock_layers,
# fuzz/oss-fuzz/mock_variants.py); every //mock_layers target reads ALL_MOCK_LAYER_VARIANTS.
MOCK_LAYER_CHASSIS_VARIANTS = {
    "chassis": _row(2, negotiate = NEG, gipa = STD, chassis = True),
}

ALL_MOCK_LAYER_VARIANTS = {k: v for table in [MOCK_LAYER_VARIANTS, MOCK_LAYER_CHASSIS_VARIANTS] for k, v in table.items()}

def mock_layer_exports(variant):
    row = ALL_MOCK_LAYER_VARIANTS[variant]
    syms = [] if row.chassis else list(ALWAYS)
    if row.negotiate:
        syms.append(row.negotiate)
    if row.gipa:
        syms += list(row.gipa)
    if row.gpdpa == "export":
        syms.append("vk_layerGetPhysicalDeviceProcAddr")
    if row.introspection:
        syms += INTROSPECTION
    return sorted(syms)

def mock_layer_defines(row):
    """The compile-time -D flags of one variant row (also used by the fuzz builds, bazel/fuzz.bzl)."""
    return [
        "-DMOCK_LAYER_INTERFACE=%d" % row.interface,
        "-DMOCK_LAYER_EXPORT_NEGOTIATE=%d" % (1 if row.negotiate else 0),
        "-DMOCK_LAYER_NEGOTIATE_NAME=%s" % (row.negotiate or NEG),
        "-DMOCK_LAYER_EXPORT_GIPA=%d" % (1 if row.gipa else 0),
        "-DMOCK_LAYER_GIPA_NAME=%s" % (row.gipa or STD)[0],
        "-DMOCK_LAYER_GDPA_NAME=%s" % (row.gipa or STD)[1],
        "-DMOCK_LAYER_HAS_GPDPA=%d" % (1 if row.gpdpa else 0),
        "-DMOCK_LAYER_EXPORT_GPDPA=%d" % (1 if row.gpdpa == "export" else 0),
        "-DMOCK_LAYER_EXPORT_INTROSPECTION=%d" % (1 if row.introspection else 0),
        "-DMOCK_LAYER_HAS_GDPA=%d" % (1 if row.gdpa else 0),
    ]

def mock_layer_library_label(variant):
    return ":libmock_layer_%s.so" % variant

def mock_layer_all_libraries():
    return [mock_layer_library_label(v) for v in sorted(ALL_MOCK_LAYER_VARIANTS.keys())]

def mock_layer_variants(srcs, deps, chassis_srcs, chassis_deps):
    """srcs/deps: mock_layer*.c's (:mock_layer_srcs); chassis_srcs/chassis_deps: chassis_layer.c's (rows with chassis)."""
    for variant in sorted(ALL_MOCK_LAYER_VARIANTS.keys()):
        row = ALL_MOCK_LAYER_VARIANTS[variant]
        script = "libmock_layer_%s.lds" % variant
        native.genrule(
            name = "libmock_layer_%s_lds" % variant,
            outs = [script],
            cmd = "echo '{ global: %s; local: *; };' > $@" % "; ".join(mock_layer_exports(variant)),
        )
        native.cc_binary(
            name = "libmock_layer_%s.so" % variant,
            srcs = chassis_srcs if row.chassis else srcs,
            copts = C_COPTS + ([] if row.chassis else mock_layer_defines(row)),
            linkshared = 1,
            linkopts = [
                "-Wl,--no-undefined",
                "-Wl,--as-needed",
                "-Wl,--version-script=$(location :%s)" % script,
            ],
            additional_linker_inputs = [":" + script],
            deps = chassis_deps if row.chassis else deps,
        )

def mock_layer_exports_test(name, script):
    args = []
    for variant in sorted(ALL_MOCK_LAYER_VARIANTS.keys()):
        args += ["$(location %s)" % mock_layer_library_label(variant), ",".join(mock_layer_exports(variant))]
    native.sh_test(
        name = name,
        size = "small",
        srcs = [script],
        args = args,
        data = mock_layer_all_libraries(),
    )
