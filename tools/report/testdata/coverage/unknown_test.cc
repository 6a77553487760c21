// Fixture: cites an ID that is not in the table.
TEST(X, Y) { VKT_POLICY("LDP_LOADER_1", "RULE_NOT_IN_TABLE"); }
