#!/usr/bin/env python3
"""Writes driver_matrix.tsv: the expected outcome of every driver-matrix cell.

Run once after changing a dimension (python3 gen_driver_matrix.py > driver_matrix.tsv) and review
the diff: the TSV, not this script, is what driver_matrix_test reads. The expectations follow the
rules cited in each row (conformance/policies/policies.tsv).

Every cell has two drivers:
  m    the driver under test (manifest version x interface variant), placed so that only the
       cell's variable makes it visible;
  ctl  a well-behaved control driver in /usr/share/vulkan/icd.d (a fixed directory, searched with
       or without privileges).
For the filter variables both drivers sit in /usr/share/vulkan/icd.d and the filter names m.json
(SELECT) or ctl.json (DISABLE).
"""

MANIFESTS = ["1.0.0", "1.0.1"]
IFACES = [(0, "v0"), (1, "v1"), (2, "v2"), (3, "v3"), (4, "v4"), (5, "v5"), (6, "v6"), (7, "v7_exports"),
          # interface 7 with vk_icdNegotiateLoaderICDInterfaceVersion (and GPDPA) reachable only
          # through vk_icdGetInstanceProcAddr, not exported (RULE_DRV_IFACE_V7's other half)
          (7, "v7")]
# setgid and file-capability cells beside the set-uid ones: every variable for these
# (manifest, variant) pairs (the set-uid cells cover every pair).
ELEVATED_EXTRA = [("1.0.1", "v7_exports"), ("1.0.1", "v7")]
# var, rule(s) proving the variable, devices normal, devices elevated, elevated rule
VARS = [
    ("VK_DRIVER_FILES", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "m", "ctl", "RULE_ENV_ELEVATED_DRIVER_FILES"),
    ("VK_ICD_FILENAMES", "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "m", "ctl", "RULE_ENV_ELEVATED_ICD_FILENAMES"),
    ("VK_ADD_DRIVER_FILES", "RULE_DRV_ENV_ADD_DRIVER_FILES", "ctl m", "ctl", "RULE_ENV_ELEVATED_ADD_DRIVER_FILES"),
    ("XDG_CONFIG_HOME", "RULE_ENV_XDG_CONFIG_HOME", "ctl m", "ctl", "RULE_ENV_ELEVATED_XDG_CONFIG_HOME"),
    ("XDG_DATA_HOME", "RULE_ENV_XDG_DATA_HOME", "ctl m", "ctl", "RULE_ENV_ELEVATED_XDG_DATA_HOME"),
    ("XDG_CONFIG_DIRS", "RULE_ENV_XDG_CONFIG_DIRS", "ctl m", "ctl", "RULE_ENV_ELEVATED_XDG_CONFIG_DIRS"),
    ("XDG_DATA_DIRS", "RULE_ENV_XDG_DATA_DIRS", "ctl m", "ctl", "RULE_ENV_ELEVATED_XDG_DATA_DIRS"),
    ("HOME_CONFIG", "RULE_ENV_HOME", "ctl m", "ctl", "RULE_ENV_ELEVATED_HOME"),
    ("HOME_DATA", "RULE_ENV_HOME", "ctl m", "ctl", "RULE_ENV_ELEVATED_HOME"),
    ("VK_LOADER_DRIVERS_SELECT", "RULE_DRV_FILTER_SELECT", "m", "ctl m", "RULE_ENV_ELEVATED_DRIVERS_SELECT"),
    ("VK_LOADER_DRIVERS_DISABLE", "RULE_DRV_FILTER_DISABLE", "m", "ctl m", "RULE_ENV_ELEVATED_DRIVERS_DISABLE"),
]
PATH_VARS = {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"}


def main():
    print("# Driver matrix: manifest version x driver interface x path/filter variable x privilege.")
    print("# Read by driver_matrix_test.cc (one gtest case per row); written by gen_driver_matrix.py.")
    print("# var: the variable that alone makes driver m visible (HOME_CONFIG / HOME_DATA: $HOME/.config or")
    print("#   $HOME/.local/share with the XDG home variable unset); for the filters both drivers are in")
    print("#   /usr/share/vulkan/icd.d and the filter names m.json (SELECT) or ctl.json (DISABLE).")
    print("# privilege: normal, or setuid / setgid / setcap (the probe copy set-uid root, set-gid, or with file")
    print("#   capabilities, run as uid 65534: AT_SECURE); setgid / setcap for the pairs in ELEVATED_EXTRA.")
    print("# devices: the physical devices vkEnumeratePhysicalDevices must report, by driver (sorted).")
    print("# rules: the policy IDs the cell proves.")
    print("cell\tmanifest\tinterface\tvariant\tvar\tprivilege\tdevices\trules")
    for mv in MANIFESTS:
        for iface, variant in IFACES:
            for var, rule, normal, elevated, erule in VARS:
                privs = ["normal", "setuid"]
                if (mv, variant) in ELEVATED_EXTRA:
                    privs += ["setgid", "setcap"]
                for priv in privs:
                    rules = ["RULE_DRV_MANIFEST_V" + mv.replace(".", "_"), "RULE_DRV_IFACE_V%d" % iface, rule]
                    if priv != "normal":
                        rules += ["RULE_ENV_ELEVATED", erule]
                        if var in PATH_VARS:
                            rules.append("LDP_LOADER_13")
                    tag = "i%d" % iface if variant != "v7" else "i7gipa"
                    cell = "m%s_%s_%s_%s" % (mv.replace(".", ""), tag, var, priv)
                    print("\t".join([cell, mv, str(iface), variant, var, priv,
                                     normal if priv == "normal" else elevated, " ".join(rules)]))


if __name__ == "__main__":
    main()
