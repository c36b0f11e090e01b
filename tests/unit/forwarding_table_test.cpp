#include "models/switch/forwarding_table.h"

#include <gtest/gtest.h>

#include <map>

using namespace sluice;

TEST(ForwardingTable, SingleRouteAndUnknownDestination) {
  forwarding_table t;
  t.set_route(5, {3});
  EXPECT_EQ(t.lookup(5, 1, 7), 3);
  EXPECT_EQ(t.lookup(6, 1, 7), -1);
  EXPECT_EQ(t.lookup(4, 1, 7), -1);
}

TEST(ForwardingTable, EcmpSpreadsFlowsEvenlyAndKeepsEachFlowOnOnePath) {
  forwarding_table t(12345);
  t.set_route(9, {1, 2, 3, 4});
  std::map<int, int> count;
  const int flows = 40000;
  for (int f = 0; f < flows; ++f) {
    int port = t.lookup(9, f % 64, f);
    ASSERT_EQ(port, t.lookup(9, f % 64, f));  // per-flow: deterministic
    ++count[port];
  }
  ASSERT_EQ(count.size(), 4u);
  for (auto [port, n] : count) EXPECT_NEAR(n, flows / 4, flows / 4 * 0.05) << "port " << port;
}

TEST(ForwardingTable, SaltChangesThePlacement) {
  forwarding_table a(1), b(2);
  a.set_route(0, {0, 1});
  b.set_route(0, {0, 1});
  int differ = 0;
  for (uint32_t f = 0; f < 1000; ++f) differ += a.lookup(0, 1, f) != b.lookup(0, 1, f);
  EXPECT_GT(differ, 300);  // independent hashes disagree about half the time
}
