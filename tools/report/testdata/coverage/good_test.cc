// Fixture for policy_coverage_test: well-formed citations only.
#include "conformance/framework/vkt.h"

TEST(Discovery, NoDriverIsIncompatible) {
    VKT_POLICY("LDP_LOADER_1");
    // VKT_POLICY("RULE_COMMENTED_OUT_LINE") must be ignored.
    /* VKT_POLICY("RULE_COMMENTED_OUT_BLOCK")
       spanning lines */
    const char *text = "VKT_POLICY(\"RULE_INSIDE_A_STRING\") // not a comment";
    (void)text;
}

TEST(Discovery, AllManifestsAttempted) {
    VKT_POLICY("LDP_LOADER_2",
               "RULE_DRV_SEARCH_ORDER");  // a citation may span lines
}

TEST(LdpCheck, Manifest) { VKT_POLICY( "LDP_DRIVER_4" ); }

TEST(Removed, StillLoadsCoreExporters) { VKT_POLICY("LDP_DRIVER_6"); }
