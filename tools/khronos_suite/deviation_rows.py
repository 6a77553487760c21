#!/usr/bin/env python3
"""Writes the upstream-suite deviation table: every test of the Khronos Vulkan-Loader regression
suite that our loader fails, with its status (deviation: chosen and backed by a document; open: a
difference not yet mended) and the reason (standard library only).

  deviation_rows.py TABLE.tsv MAP.tsv OUT.tsv

TABLE.tsv: results/table.tsv of ../shared/khronos_suite/run.sh (columns test, class, khronos, debian,
ours, ...). MAP.tsv: the per-test failure map (test, class, cause, test_kind, clusters). The cluster
verdicts below are the project's readings; a test whose first cluster is not listed is "open".
"""
import csv
import sys

# cluster -> (status, rule, reason with the text behind it)
VERDICTS = {
    "A4": ("deviation", "LDP_LOADER_5",
           "LoaderDriverInterface.md: a driver whose vk_icdNegotiateLoaderICDInterfaceVersion is reachable only "
           "through vk_icdGetInstanceProcAddr is an interface-7 driver; one that then negotiates 1-6 is ignored "
           "(the Khronos loader uses it)."),
    "A5": ("deviation", "RULE_SETTINGS_FILE",
           "docs/settings.md: additional_drivers are loaded in the file's order before the discovered drivers; "
           "LoaderSettingsFile.md names no order, the Khronos loader lists the discovered driver's device first."),
    "A6": ("deviation", "LLP_LOADER_3",
           "LoaderLayerInterface.md LLP_LOADER_3: duplicate layer names are filtered, keeping only the first "
           "occurrence; the Khronos loader activates both settings-file layers of one name."),
    "D15": ("deviation", "RULE_INST_ROBUST_ARGUMENTS",
            "Invalid usage (a NULL surface, a NULL handle) has undefined behaviour in the Vulkan specification; "
            "our loader returns instead of aborting where the Khronos loader's test expects the process to die."),
    "A2": ("deviation", "RULE_INST_ROBUST_ARGUMENTS",
           "Vulkan specification: a count pointer of a count/array pair must be a valid pointer "
           "(VUID-vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR-pCounterCount-parameter, "
           "VUID-vkGetPhysicalDeviceCalibrateableTimeDomainsKHR-pTimeDomainCount-parameter); ours refuses a NULL one "
           "with an ERROR naming the VUID and VK_ERROR_OUT_OF_HOST_MEMORY before any layer or driver sees it, the "
           "Khronos loader passes it to the driver (its test driver tolerates it). A physical device whose driver "
           "lacks the command: ours logs the Khronos sentence and returns where the test expects the process to die "
           "(invalid usage, as D15)."),
    "D16": ("deviation", "RULE_ENV_XDG",
            "XDG Base Directory Specification: XDG_CONFIG_HOME / XDG_DATA_HOME name one directory; the Khronos "
            "loader splits them on ':' like the *_DIRS lists."),
    "D17": ("deviation", "LDP_LOADER_11",
            "A driver that reports VK_SUCCESS from vkCreate*SurfaceKHR without writing a handle (the test driver) "
            "gets the loader's surface, as interface <3 drivers do; the Khronos loader passes VK_NULL_HANDLE."),
    "E1": ("deviation", "n.a.",
           "White-box: arms a failure of the Khronos loader's own internal list growth (its 33rd messenger); ours "
           "allocates at other points, each covered by //conformance/loader:oom_walk_test."),
    "E2": ("deviation", "LLP_LAYER_21",
           "White-box: the Khronos loader's terminator message about its instance MAGIC; ours refuses the "
           "replaced handle with its own LLP_LAYER_21/22 line (conformance/loader/layers)."),
    "D4": ("deviation", "RULE_SETTINGS_FILE",
           "Vulkan specification, vkEnumeratePhysicalDeviceGroups: with pPhysicalDeviceGroupProperties NULL \"the "
           "number of device groups available is returned\"; when device_configurations choose no device ours "
           "answers VK_ERROR_INITIALIZATION_FAILED to the count query and the fill call alike, the Khronos loader "
           "reports the unfiltered count and then fails the fill call, which the test expects."),
    "C9": ("deviation", "RULE_LOG_FORMAT",
           "The test compares whole log lines (\"[Vulkan Loader] INFO:           <text>\\n\"); ours carry the "
           "message category in the header and the policy ID at the end of the line, which RULE_LOG_FORMAT keeps "
           "(\"Keep our policy ID on the same line\"; the \"SEVERITY | CATEGORY:\" header stays), and the settings "
           "file's layer list is logged in ours as one line per layer, not the Khronos loader's framed dump."),
    "D5": ("deviation", "RULE_PHYSDEV_SORT",
           "LoaderApplicationInterface.md \"Physical Device Ordering\": on Linux the loader sorts physical devices and "
           "groups by type and PCI bus information. Ours sorts also when the instance cannot use "
           "vkGetPhysicalDeviceProperties2 (the Vulkan 1.0 query gives the type) and keeps ties in the drivers' "
           "order; the Khronos loader then leaves the list unsorted (last driver first, groups as the driver "
           "reports them), the order these tests pin."),
    "D2": ("open", "n.a.",
           "the names the loader knows come from the vk.xml it was built from: with Debian's 1.3.239 the "
           "suite's 1.4.359 names are missing (build with tools/vulkan_headers/overlay.sh, "
           "docs/vulkan-headers.md); a test still failing with the 1.4.359 build is to analyse."),
}
# Clusters mended since the map was written (their tests pass unless another cluster remains).
FIXED = {"A1", "B1", "C1", "C7", "D7", "D12", "D1", "D3", "D4", "D14", "C2", "C3", "C5", "C8", "A3", "D8", "D13"}

SPECIAL = {}


def main(argv):
    if len(argv) != 4 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    table, mapping, out = argv[1:]
    clusters = {}
    with open(mapping, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            clusters[row["test"]] = (row["clusters"].split(",") if row["clusters"] else [], row["cause"])
    rows = []
    with open(table, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["ours"] == "PASS":
                continue
            cl, cause = clusters.get(row["test"], ([], ""))
            verdict = None
            for c in cl:
                if c in VERDICTS or c in SPECIAL:
                    verdict = VERDICTS.get(c) or SPECIAL[c]
                    break
            if verdict is None:
                left = [c for c in cl if c not in FIXED]
                verdict = ("open", "n.a.", ("%s: %s" % (",".join(left), cause)) if left else
                           "a difference the 2026-11-29 map does not explain on today's code; to analyse")
            rows.append((row["test"], row["class"], row["ours"], ",".join(cl)) + verdict)
    with open(out, "w") as f:
        f.write("# Tests of the Khronos Vulkan-Loader regression suite (14406049, 1.4.360) our loader fails, from\n"
                "# ../shared/khronos_suite/run.sh; written by tools/khronos_suite/deviation_rows.py.\n"
                "# Columns: test, kind (behaviour/log), result, clusters of the 2026-11-29 map, status, rule, reason.\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    n_dev = sum(1 for r in rows if r[4] == "deviation")
    print("%d failing: %d deviation, %d open" % (len(rows), n_dev, len(rows) - n_dev))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
