#!/usr/bin/env python3
"""Writes layer_matrix.tsv: the expected outcome of every layer-matrix cell.

Run after changing a dimension (python3 gen_layer_matrix.py > layer_matrix.tsv) and review the
diff: the TSV, not this script, is what layer_matrix_test reads. Expectations follow the rules each
row cites (conformance/policies/policies.tsv).

Every cell has two mock layers that append their calls to one shared file, so the order of their
vkCreateInstance records is the chain order (first = closest to the application):
  L  the layer under test (manifest version x export variant), placed so that only the cell's
     variable makes it visible / active / inactive;
  C  a well-behaved control layer (variant v2, manifest 1.1.2) in a fixed system directory
     (/etc/vulkan/...): implicit when L is explicit, explicit and requested by the application when
     L is implicit, so the two always sit in a defined order.
"""

MANIFESTS = ["1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.2.1"]
# variant, interface, first manifest version that can describe it ("functions" renaming the
# negotiate function needs 1.1.0)
VARIANTS = [
    ("v0", 0, "1.0.0"), ("v1", 1, "1.0.0"), ("v1_renamed", 1, "1.0.0"), ("v2", 2, "1.0.0"),
    ("v2_gpdpa", 2, "1.0.0"), ("v2_gpdpa_export", 2, "1.0.0"), ("v2_renamed", 2, "1.1.0"),
    ("v2_all", 2, "1.0.0"),
]
# var, rules, (result, chain) normal, (result, chain) elevated, elevated rules, log tag when elevated
OK = "VK_SUCCESS"
NP = "VK_ERROR_LAYER_NOT_PRESENT"
VARS = [
    ("VK_LAYER_PATH", "RULE_LYR_ENV_LAYER_PATH RULE_LYR_ORDER", (OK, "C L"), (NP, "-"),
     "RULE_ENV_ELEVATED_LAYER_PATH LLP_LOADER_13", "LLP_LOADER_13"),
    ("VK_ADD_LAYER_PATH", "RULE_LYR_ENV_LAYER_PATH RULE_LYR_ORDER", (OK, "C L"), (NP, "-"),
     "RULE_ENV_ELEVATED_ADD_LAYER_PATH LLP_LOADER_13", "LLP_LOADER_13"),
    ("VK_IMPLICIT_LAYER_PATH", "RULE_LYR_ENV_IMPLICIT_LAYER_PATH RULE_LYR_ORDER", (OK, "L C"), (OK, "C"),
     "RULE_ENV_ELEVATED_IMPLICIT_LAYER_PATH LLP_LOADER_13", "LLP_LOADER_13"),
    ("VK_ADD_IMPLICIT_LAYER_PATH", "RULE_LYR_ENV_IMPLICIT_LAYER_PATH RULE_LYR_ORDER", (OK, "L C"), (OK, "C"),
     "RULE_ENV_ELEVATED_ADD_IMPLICIT_LAYER_PATH LLP_LOADER_13", "LLP_LOADER_13"),
    ("VK_INSTANCE_LAYERS", "RULE_LYR_ENV_INSTANCE_LAYERS RULE_LYR_ORDER", (OK, "C L"), (OK, "C"),
     "RULE_ENV_ELEVATED_INSTANCE_LAYERS", "LLP_LOADER_13"),
    ("VK_LOADER_LAYERS_ENABLE", "RULE_LYR_FILTER_ENABLE RULE_LYR_ORDER", (OK, "C L"), (OK, "C"),
     "RULE_ENV_ELEVATED_LAYERS_ENABLE", "RULE_ENV_ELEVATED"),
    ("VK_LOADER_LAYERS_DISABLE", "RULE_LYR_FILTER_DISABLE", (OK, "C"), (OK, "L C"),
     "RULE_ENV_ELEVATED_LAYERS_DISABLE", "RULE_ENV_ELEVATED"),
    # DISABLE=~implicit~ plus ALLOW=L: L stays; elevated both are ignored, so L stays too (moot)
    ("VK_LOADER_LAYERS_ALLOW", "RULE_LYR_FILTER_ALLOW RULE_LYR_FILTER_DISABLE", (OK, "L C"), (OK, "L C"),
     "RULE_ENV_ELEVATED_LAYERS_ALLOW", "RULE_ENV_ELEVATED"),
    ("enable_environment", "LLP_LOADER_6", (OK, "L C"), (OK, "L C"), "RULE_ENV_ELEVATED_LAYER_ENABLE_ENV", "-"),
    ("disable_environment", "LLP_LOADER_7", (OK, "C"), (OK, "C"), "RULE_ENV_ELEVATED_LAYER_DISABLE_ENV", "-"),
]
# Privileged cells (kept few: each needs a set-uid/set-gid/capable probe run as uid 65534):
# every variable x these (manifest, variant) pairs set-uid, and x the other two privileges once.
ELEVATED = [("setuid", "1.0.0", "v1"), ("setuid", "1.1.2", "v2_gpdpa"), ("setuid", "1.2.1", "v2_all"),
            ("setgid", "1.2.1", "v2"), ("setcap", "1.2.1", "v2")]


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def row(mv, variant, iface, var, rules, outcome, priv, erules, tag):
    result, chain = outcome
    ids = ["RULE_LYR_MANIFEST_V" + mv.replace(".", "_"), "RULE_LYR_IFACE_V%d" % iface] + rules.split()
    log = "-"
    if priv != "normal":
        ids += ["RULE_ENV_ELEVATED"] + erules.split()
        log = tag
    cell = "m%s_%s_%s_%s" % (mv.replace(".", ""), variant, var, priv)
    return "\t".join([cell, mv, variant, str(iface), var, priv, result, chain, log, " ".join(ids)])


def main():
    print("# Layer matrix: layer manifest version x layer export variant x layer path/filter variable x privilege.")
    print("# Read by layer_matrix_test.cc (one gtest case per row); written by gen_layer_matrix.py.")
    print("# L: the layer under test (VK_LAYER_MOCK_matrix_L); C: the control layer (VK_LAYER_MOCK_matrix_C),")
    print("#   implicit in /etc/vulkan/implicit_layer.d when L is explicit (VK_LAYER_PATH, VK_ADD_LAYER_PATH,")
    print("#   VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE), else explicit in /etc/vulkan/explicit_layer.d and")
    print("#   requested by the application. L is placed by var: the path variables name a directory of the cell")
    print("#   holding only L's manifest (explicit for *LAYER_PATH, implicit for *IMPLICIT_LAYER_PATH; the")
    print("#   application requests L for the explicit ones); VK_INSTANCE_LAYERS / VK_LOADER_LAYERS_ENABLE name")
    print("#   explicit L in /etc/vulkan/explicit_layer.d; VK_LOADER_LAYERS_DISABLE names implicit L in")
    print("#   /etc/vulkan/implicit_layer.d; VK_LOADER_LAYERS_ALLOW names it with DISABLE=~implicit~;")
    print("#   enable_environment / disable_environment: implicit L whose manifest variable is set.")
    print("# privilege: normal, or setuid / setgid / setcap (the probe copy run as uid 65534: AT_SECURE).")
    print("# result: vkCreateInstance; chain: the layers' vkCreateInstance order, first = closest to the")
    print("#   application (- none); log: for our loader, the tag of the 'env VAR: ignored because the process")
    print("#   runs with elevated privileges [TAG]' line the cell must print (- none required).")
    print("# rules: the policy IDs the cell proves.")
    print("cell\tmanifest\tvariant\tinterface\tvar\tprivilege\tresult\tchain\tlog\trules")
    for mv in MANIFESTS:
        for variant, iface, since in VARIANTS:
            if vkey(mv) < vkey(since):
                continue
            for var, rules, normal, elevated, erules, tag in VARS:
                print(row(mv, variant, iface, var, rules, normal, "normal", erules, tag))
    for var, rules, normal, elevated, erules, tag in VARS:
        for priv, mv, variant in ELEVATED:
            iface = [i for v, i, _ in VARIANTS if v == variant][0]
            print(row(mv, variant, iface, var, rules, elevated, priv, erules, tag))


if __name__ == "__main__":
    main()
