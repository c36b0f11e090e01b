// Policies by name: the registry contract, and the small policies (schedulers, thresholds,
// path choice) with exact results.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "models/cc/congestion_point.h"
#include "models/cc/notification_point.h"
#include "models/cc/reaction_point.h"
#include "models/cc/scheme.h"
#include "models/switch/egress_scheduler.h"
#include "models/switch/switch_policies.h"

using namespace sluice;

namespace {
struct thing {
  virtual ~thing() = default;
  virtual int value() const = 0;
};
struct fixed : thing {
  int v;
  explicit fixed(int x) : v(x) {}
  int value() const override { return v; }
};
using thing_policies = policy_registry<thing, int>;
const policy_registrar<thing_policies> plus_one{"plus-one", "adds one",
                                                [](int x) { return std::make_unique<fixed>(x + 1); }};
const policy_registrar<thing_policies> twice{"twice", "doubles", [](int x) { return std::make_unique<fixed>(2 * x); }};

// Which class each of `frames` selections serves, every queue holding 1000-byte frames.
std::vector<int> serve(scheduler_if& s, uint32_t eligible, int frames) {
  std::array<uint32_t, max_classes> head{};
  for (int q = 0; q < max_classes; ++q) head[q] = (eligible >> q & 1) ? 1000 : 0;
  std::vector<int> order;
  for (int i = 0; i < frames; ++i) order.push_back(s.select(head, eligible));
  return order;
}
std::unique_ptr<scheduler_if> scheduler(const std::string& name) {
  scheduler_config c;
  c.strict[5] = true;  // honoured by strict-dwrr only
  for (auto& w : c.weight) w = 1;
  return scheduler_policies::instance().make("test.scheduler", name, c, nullptr);
}
}  // namespace

TEST(PolicyRegistry, NamesInRegistrationOrderAndMakesByName) {
  EXPECT_EQ(thing_policies::instance().names(), (std::vector<std::string>{"plus-one", "twice"}));
  EXPECT_EQ(thing_policies::instance().make("x", "twice", 21)->value(), 42);
  EXPECT_THROW(thing_policies::instance().add("twice", "again", [](int) { return nullptr; }), std::logic_error);
}

TEST(PolicyRegistry, UnknownNameNamesTheParameterAndListsTheChoices) {
  try {
    thing_policies::instance().make("sw0.port3.thing", "thrice", 1);
    FAIL();
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "sw0.port3.thing: 'thrice' is not one of {plus-one, twice}");
  }
}

TEST(PolicyRegistry, ChoiceSpecListsTheNamesAndTheirDescriptions) {
  auto spec = thing_policies::instance().choice_for("thing", "a thing", "twice");
  EXPECT_EQ(spec->choices, (std::vector<std::string>{"plus-one", "twice"}));
  EXPECT_EQ(spec->default_value, "twice");
  EXPECT_STREQ(spec->description, "a thing; plus-one: adds one; twice: doubles");
  EXPECT_THROW(thing_policies::instance().choice_for("thing", "a thing", "thrice"), std::logic_error);
}

TEST(PolicyRegistry, ShippedPoliciesAreRegistered) {
  // The policy files are linked whole: registrars nothing else references still ran. A new
  // policy's file adds itself, so the shipped names are checked as a subset, in their order.
  auto has_in_order = [](const std::vector<std::string>& names, const std::vector<std::string>& shipped) {
    std::size_t at = 0;
    for (const std::string& n : names)
      if (at < shipped.size() && n == shipped[at]) ++at;
    return at == shipped.size();
  };
  EXPECT_TRUE(
      has_in_order(scheduler_policies::instance().names(), {"strict-dwrr", "ib-vlarb", "round-robin", "strict"}));
  EXPECT_EQ(scheduler_policies::instance().names().front(), "strict-dwrr");  // the default
  EXPECT_EQ(threshold_policies::instance().names(), (std::vector<std::string>{"static", "dynamic"}));
  EXPECT_TRUE(
      has_in_order(forwarding_policies::instance().names(), {"ecmp", "adaptive-local", "adaptive", "first", "lft"}));
  EXPECT_EQ(forwarding_policies::instance().names().front(), "ecmp");
  EXPECT_TRUE(has_in_order(cp_policies::instance().names(),
                           {"none", "asm", "dcqcn", "ecm", "ecn-threshold", "ib-cca", "pcn", "qcn", "tcd"}));
  EXPECT_TRUE(has_in_order(np_policies::instance().names(),
                           {"none", "dcqcn", "dcqcn-tcd", "ecn-count", "ib-cca", "ib-cca-tcd", "pcn", "timely"}));
  EXPECT_TRUE(has_in_order(rp_policies::instance().names(), {"none", "asm", "dcqcn", "dcqcn-tcd", "ecm", "ib-cca",
                                                             "ib-cca-tcd", "pcn", "qcn", "timely"}));
  // Every registered scheme's roles are registered policies of their roles.
  auto registered = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  for (const auto& s : cc_scheme_registry::instance().all()) {
    EXPECT_TRUE(registered(cp_policies::instance().names(), s->cp)) << s->name << " cp " << s->cp;
    EXPECT_TRUE(registered(np_policies::instance().names(), s->np)) << s->name << " np " << s->np;
    EXPECT_TRUE(registered(rp_policies::instance().names(), s->rp)) << s->name << " rp " << s->rp;
  }
}

TEST(RoundRobinScheduler, OneFramePerEligibleClassInTurn) {
  auto s = scheduler("round-robin");
  EXPECT_EQ(serve(*s, 0b101000, 4), (std::vector<int>{3, 5, 3, 5}));  // strict[5] ignored
  // Class 1 joins: served in class order after the class served last (5), wrapping.
  EXPECT_EQ(serve(*s, 0b101010, 6), (std::vector<int>{1, 3, 5, 1, 3, 5}));
  // Class 3 alone, then 1 and 5 again: the turn continues after 3.
  EXPECT_EQ(serve(*s, 0b001000, 2), (std::vector<int>{3, 3}));
  EXPECT_EQ(serve(*s, 0b100010, 3), (std::vector<int>{5, 1, 5}));
  EXPECT_EQ(s->select({}, 0), -1);
}

TEST(StrictScheduler, HighestEligibleClassAlways) {
  auto s = scheduler("strict");
  EXPECT_EQ(serve(*s, 0b101010, 3), (std::vector<int>{5, 5, 5}));
  EXPECT_EQ(serve(*s, 0b001010, 2), (std::vector<int>{3, 3}));
  EXPECT_EQ(serve(*s, 1u << 15 | 1, 1), (std::vector<int>{15}));
  EXPECT_EQ(s->select({}, 0), -1);
}

TEST(StrictDwrrScheduler, ByNameIsTodaysEgressScheduler) {
  auto s = scheduler("strict-dwrr");
  EXPECT_EQ(serve(*s, 0b101010, 3), (std::vector<int>{5, 5, 5}));  // 5 strict
  // DWRR, quantum 1500 B, 1000 B frames: 1 (500 left), 3 (500 left), 1 (2000 -> 1000), 1.
  EXPECT_EQ(serve(*s, 0b001010, 4), (std::vector<int>{1, 3, 1, 1}));
}

TEST(ThresholdPolicies, StaticIsXoffDynamicIsAlphaTimesFreePool) {
  pg_config c;
  c.xoff = 5000;
  c.alpha = 0.5;
  pg_usage u;
  auto st = threshold_policies::instance().make("t", "static");
  auto dy = threshold_policies::instance().make("t", "dynamic");
  EXPECT_EQ(st->limit(c, u, 100000), 5000u);
  EXPECT_FALSE(st->follows_pool());
  EXPECT_EQ(dy->limit(c, u, 100000), 50000u);
  EXPECT_TRUE(dy->follows_pool());
}

TEST(ForwardingPolicies, FirstTakesTheLowestPortEcmpTheTableHash) {
  forwarding_table t(7);
  t.set_route(9, {2, 3, 4, 5});
  auto first = forwarding_policies::instance().make("t", "first");
  auto ecmp = forwarding_policies::instance().make("t", "ecmp");
  std::set<int> hashed;
  for (uint32_t flow = 0; flow < 32; ++flow) {
    const int plain = t.lookup(9, 1, flow);
    t.set_selector(ecmp.get());
    EXPECT_EQ(t.lookup(9, 1, flow), plain);
    t.set_selector(first.get());
    EXPECT_EQ(t.lookup(9, 1, flow), 2);
    t.set_selector(nullptr);
    hashed.insert(plain);
  }
  EXPECT_GT(hashed.size(), 1u);
}

TEST(ForwardingPolicies, LftTakesOnePortPerDestinationLidWhateverTheFlow) {
  // Ports {2, 3, 4, 5}: destination node 9 is LID 10, 10 mod 4 = 2: port 4 for every source and
  // flow; node 10 (LID 11) gets port 5.
  forwarding_table t(12);
  t.set_route(9, {2, 3, 4, 5});
  t.set_route(10, {2, 3, 4, 5});
  auto lft = forwarding_policies::instance().make("t", "lft");
  t.set_selector(lft.get());
  for (uint32_t src = 0; src < 4; ++src)
    for (uint32_t flow = 0; flow < 8; ++flow) {
      EXPECT_EQ(t.lookup(9, src, flow), 4);
      EXPECT_EQ(t.lookup(10, src, flow), 5);
    }
}

// Packet spraying: one flow's frames spread evenly over every equal-cost port, and the same
// switch (salt) draws the same ports again.
TEST(ForwardingPolicies, RandomSpraysOneFlowsFramesEvenlyAndRepeatably) {
  forwarding_table t(5);
  t.set_route(9, {2, 3, 4, 5});
  auto random = forwarding_policies::instance().make("t", "random");
  auto again = forwarding_policies::instance().make("t", "random");
  std::map<int, int> count;
  const int frames = 40000;
  for (int i = 0; i < frames; ++i) {
    t.set_selector(random.get());
    const int port = t.lookup(9, 1, 7);
    t.set_selector(again.get());
    ASSERT_EQ(t.lookup(9, 1, 7), port) << "frame " << i;
    ++count[port];
  }
  ASSERT_EQ(count.size(), 4u);
  for (auto [port, n] : count) EXPECT_NEAR(n, frames / 4, frames / 4 * 0.05) << "port " << port;
}
