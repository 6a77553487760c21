// Records policies the way VKT_POLICY does (RecordProperty), so report_test can check that report.py
// reads the XML this googletest version really writes. Built and run by the genrule
// //tools/report:gtest_property_xml; one case fails and one is skipped on purpose, which
// is why the probe exits 1.
#include <gtest/gtest.h>

TEST(Probe, Passes) { RecordProperty("policies", "LDP_LOADER_1 RULE_DRV_SEARCH_ORDER"); }

TEST(Probe, Fails) {
    RecordProperty("policies", "LDP_LOADER_2");
    ADD_FAILURE() << "deliberate failure <&> for the report test";
}

TEST(Probe, Skips) {
    RecordProperty("policies", "LDP_LOADER_3");
    GTEST_SKIP() << "deliberately skipped";
}

// What VKT_POLICY leaves behind for a listed deviation: failures intercepted, the case passes.
TEST(Probe, KnownDeviation) {
    RecordProperty("policies", "RULE_LOG_FORMAT");
    RecordProperty("deviation", "RULE_LOG_FORMAT: documented deviation");
}

TEST(Probe, NoPolicy) {}
