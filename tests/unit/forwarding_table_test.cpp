#include "models/switch/forwarding_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "models/core/units.h"

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

// A destination with one port or none is answered from its set's sole port (forwarding_table.h),
// without reading the set: every lookup must answer what the set itself answers, as routes are
// set, replaced and shared between destinations.
TEST(ForwardingTable, OneWayLookupsAnswerAsTheirSetDoes) {
  forwarding_table t(99);
  std::mt19937_64 rng(7);
  const std::vector<std::vector<uint16_t>> sets = {{}, {4}, {9}, {0}, {2, 5}, {1, 3, 6}, {7, 8}};
  int sole = 0, none = 0, chosen = 0;
  for (int round = 0; round < 2000; ++round) {
    const uint32_t dst = static_cast<uint32_t>(rng() % 64);
    t.set_route(dst, sets[rng() % sets.size()]);
    for (uint32_t d = 0; d < 70; ++d) {
      const std::vector<uint16_t>& ports = t.ports(d);
      const uint32_t src = static_cast<uint32_t>(rng() % 100), flow = static_cast<uint32_t>(rng());
      const int want = ports.empty()       ? -1
                       : ports.size() == 1 ? ports[0]
                                           : ports[ecmp_index(ports.size(), d, src, flow, 99)];
      ASSERT_EQ(t.lookup(d, src, flow), want) << "destination " << d << " in round " << round;
      // The switch's receive asks sole_port first: the same port where there is no choice.
      ASSERT_EQ(t.sole_port(d), ports.size() > 1 ? forwarding_table::several : want) << d << " " << round;
      (ports.empty() ? none : ports.size() == 1 ? sole : chosen) += 1;
    }
  }
  EXPECT_GT(sole, 10000);
  EXPECT_GT(none, 10000);
  EXPECT_GT(chosen, 10000);
  // Honouring source paths, every lookup is the stateful one's to make, one way or none.
  t.honour_paths(1);
  for (uint32_t d = 0; d < 70; ++d) EXPECT_EQ(t.sole_port(d), forwarding_table::several) << d;
}

// A destination's route is a 2-byte index into the table's distinct port sets (docs/scale.md):
// random routes over many distinct sets read back as a plain map of each destination's set, up to
// the 65 535 sets an index numbers; one more distinct set is refused (the table as it was), a
// known one is still taken.
TEST(ForwardingTable, TwoByteIndicesRouteEveryDestinationToItsOwnSet) {
  forwarding_table t(5);
  std::mt19937_64 rng(11);
  std::map<uint32_t, std::vector<uint16_t>> plain;
  std::map<std::vector<uint16_t>, int> distinct;
  t.reserve(1000);
  const auto check_all = [&] {
    for (const auto& [dst, ports] : plain) {
      ASSERT_EQ(t.ports(dst), ports) << "destination " << dst;
      if (ports.size() == 1) {
        ASSERT_EQ(t.lookup(dst, 1, 2), ports[0]);
      }
    }
  };
  for (int round = 0; round < 5000; ++round) {
    const uint32_t dst = static_cast<uint32_t>(rng() % 3000);
    std::vector<uint16_t> ports(rng() % 4);
    for (uint16_t& p : ports) p = static_cast<uint16_t>(rng() % 64);
    t.set_route(dst, ports);
    if (!ports.empty()) ++distinct[ports];
    plain[dst] = ports;
  }
  check_all();
  uint32_t made = static_cast<uint32_t>(distinct.size());
  for (uint16_t a = 0; made < 65535; ++a)  // more distinct sets, to the limit
    for (uint16_t b = 0; b < 1024 && made < 65535; ++b) {
      std::vector<uint16_t> ports{static_cast<uint16_t>(1000 + a), b, static_cast<uint16_t>(2000 + b)};
      if (distinct.count(ports)) continue;
      distinct[ports] = 1;
      ++made;
      t.set_route(4000 + made % 100, ports);
      plain[4000 + made % 100] = ports;
    }
  check_all();
  EXPECT_THROW(t.set_route(7, {60000, 1, 2}), config_error);
  check_all();
  t.set_route(7, plain.begin()->second);  // a set the table has
  plain[7] = plain.begin()->second;
  check_all();
}
