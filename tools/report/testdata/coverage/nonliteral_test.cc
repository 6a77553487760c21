// Fixture: IDs reaching VKT_POLICY through a parameter table; and a string holding two IDs.
struct Case { const char* name; const char* rule; };
class P : public ::testing::TestWithParam<Case> {};
static const Case kCases[] = {
    {"a", "LDP_LOADER_2"},
    {"b", "RULE_DRV_SEARCH_ORDER"},
    {"c", "not an id"},
};
TEST_P(P, Y) { VKT_POLICY("LDP_LOADER_1", GetParam().rule); }
TEST(X, Z) { VKT_POLICY("LDP_LOADER_1 LDP_LOADER_2"); }
