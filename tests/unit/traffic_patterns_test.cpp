// The drawn traffic kinds beyond `workload` (platforms/traffic_patterns.*): statistical checks
// of what each promises, determinism, and one-line errors naming the key and the value.
#include "platforms/traffic_patterns.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "platforms/scenario.h"

using namespace sluice;

namespace {

// 4 leaves x 8 hosts at 10 Gb/s: 32 NICs h<leaf>_<i>.
std::string fabric(const std::string& traffic) {
  return "platform: {kind: leaf-spine, leaves: 4, spines: 2, hosts: 8, link_rate: 10Gbps}\ntraffic: [" + traffic +
         "]\n";
}

scenario drawn(const std::string& traffic, uint64_t seed) {
  scenario s = load_scenario_text(fabric(traffic));
  expand_workloads(s, seed);
  return s;
}

// (src, dst, size, start in ps) of every flow: what "same seed, same flows" compares.
std::vector<std::tuple<std::string, std::string, uint64_t, uint64_t>> fingerprint(const scenario& s) {
  std::vector<std::tuple<std::string, std::string, uint64_t, uint64_t>> out;
  for (std::size_t i = 0; i < s.flows.size(); ++i)
    out.emplace_back(s.flow_ends[i].first, s.flow_ends[i].second, s.flows[i].size, to_ps(s.flows[i].start));
  return out;
}

void expect_error(const std::string& traffic, const std::string& fragment) {
  try {
    drawn(traffic, 1);
    ADD_FAILURE() << "no error for " << traffic;
  } catch (const config_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

const char* incast_websearch =
    "{kind: incast, src: 'h*', dst: 'h*', cdf: websearch, load: 0.6, fan_in_min: 1, fan_in_max: 15, stop: 2s}";

}  // namespace

TEST(Incast, OffersTheLoadAtEachReceiver) {
  // 0.6 x 10 Gb/s for 2 s = 1.5 GB per receiver; websearch's mean is 1.71 MB and the mean fan-in
  // 8, so about 110 events per receiver: the bytes vary by about 1 / sqrt(110 x 8) from the size
  // draws' spread, with heavy tails. Summed over the 32 receivers the total is within 6 %.
  const scenario s = drawn(incast_websearch, 3);
  std::map<std::string, double> bytes;
  double total = 0;
  for (std::size_t i = 0; i < s.flows.size(); ++i) {
    bytes[s.flow_ends[i].second] += static_cast<double>(s.flows[i].size);
    total += static_cast<double>(s.flows[i].size);
    EXPECT_TRUE(s.flows[i].from_workload);
    EXPECT_EQ(s.flows[i].kind, flow_kind::finite);
  }
  ASSERT_EQ(bytes.size(), 32u);
  for (const auto& [dst, b] : bytes) EXPECT_NEAR(b, 1.5e9, 0.45 * 1.5e9) << dst;
  EXPECT_NEAR(total, 32 * 1.5e9, 0.06 * 32 * 1.5e9);
}

TEST(Incast, FanInIsUniformInItsRangeAndSendersAreDistinct) {
  const scenario s =
      drawn("{kind: incast, src: 'h*', dst: 'h*', size: 4KB, load: 0.5, fan_in_min: 3, fan_in_max: 9, stop: 20ms}", 5);
  // An event is the flows sharing receiver and start time (the name's ".<receiver>.<event>").
  std::map<std::pair<std::string, uint64_t>, std::set<std::string>> events;
  for (std::size_t i = 0; i < s.flows.size(); ++i) {
    auto& senders = events[{s.flow_ends[i].second, to_ps(s.flows[i].start)}];
    EXPECT_TRUE(senders.insert(s.flow_ends[i].first).second) << "a sender twice in one event";
    EXPECT_NE(s.flow_ends[i].first, s.flow_ends[i].second);
    EXPECT_EQ(s.flows[i].size, 4000u);
  }
  std::map<std::size_t, int> fan_ins;
  for (const auto& [event, senders] : events) ++fan_ins[senders.size()];
  ASSERT_EQ(fan_ins.size(), 7u);  // every value of 3..9 occurs, no other
  EXPECT_EQ(fan_ins.begin()->first, 3u);
  EXPECT_EQ(fan_ins.rbegin()->first, 9u);
  for (const auto& [k, n] : fan_ins) EXPECT_NEAR(n, events.size() / 7.0, 0.2 * events.size() / 7.0) << k;
  // Load: events x mean fan-in (6) x 4 KB = 0.5 x 10 Gb/s x 20 ms per receiver, 12.5 MB.
  EXPECT_NEAR(static_cast<double>(s.flows.size()) * 4000, 32 * 12.5e6, 0.05 * 32 * 12.5e6);
}

TEST(Incast, SizesFollowTheCdf) {
  // The empirical CDF of the drawn sizes against the table's, at each of its points (fb-hadoop,
  // about 100 000 flows: the largest gap is a few 0.001).
  const scenario s = drawn(
      "{kind: incast, src: 'h*', dst: 'h*', cdf: fb-hadoop, load: 0.5, fan_in_min: 1, fan_in_max: 4, stop: 600ms}", 2);
  ASSERT_GT(s.flows.size(), 90000u);
  const std::vector<std::pair<double, double>> table = {
      {1000, 0.60}, {7000, 0.70}, {50000, 0.82}, {300000, 0.95}, {2000000, 0.99}};
  for (const auto& [bytes, p] : table) {
    std::size_t at_most = 0;
    for (const flow_spec& f : s.flows) at_most += f.size <= bytes;
    EXPECT_NEAR(static_cast<double>(at_most) / static_cast<double>(s.flows.size()), p, 0.01) << bytes;
  }
}

TEST(Permutation, IsADerangement) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const scenario s = drawn("{kind: permutation, hosts: 'h*', size: 1MB, start: 10us}", seed);
    ASSERT_EQ(s.flows.size(), 32u);
    std::set<std::string> senders, receivers;
    for (std::size_t i = 0; i < s.flows.size(); ++i) {
      EXPECT_NE(s.flow_ends[i].first, s.flow_ends[i].second);
      senders.insert(s.flow_ends[i].first);
      receivers.insert(s.flow_ends[i].second);
      EXPECT_EQ(s.flows[i].start, sc_core::sc_time(10, sc_core::SC_US));
    }
    EXPECT_EQ(senders.size(), 32u);
    EXPECT_EQ(receivers.size(), 32u);
  }
  // Uniform over derangements: over many draws every host is every other's partner about as
  // often (n = 5: each of the 4 others a quarter of the time).
  std::map<std::size_t, int> partner_of_0;
  for (uint64_t seed = 0; seed < 4000; ++seed) ++partner_of_0[random_derangement(5, seed)[0]];
  ASSERT_EQ(partner_of_0.count(0), 0u);
  for (const auto& [j, n] : partner_of_0) EXPECT_NEAR(n, 1000, 100) << j;
}

TEST(Permutation, RateAloneMakesConstantFlows) {
  const scenario s = drawn("{kind: permutation, hosts: 'h0_*', rate: 5Gbps}", 1);
  ASSERT_EQ(s.flows.size(), 8u);
  for (const flow_spec& f : s.flows) {
    EXPECT_EQ(f.kind, flow_kind::constant);
    EXPECT_EQ(f.rate.bps, 5e9);
  }
}

TEST(AllToAll, EveryOrderedPairOnce) {
  const scenario s = drawn("{kind: all-to-all, hosts: ['h0_*', 'h1_0'], size: 64KB}", 1);
  ASSERT_EQ(s.flows.size(), 9u * 8u);
  std::set<std::pair<std::string, std::string>> pairs(s.flow_ends.begin(), s.flow_ends.end());
  EXPECT_EQ(pairs.size(), 72u);
  for (const auto& [a, b] : pairs) EXPECT_NE(a, b);
}

TEST(RingAllreduce, StepsAreOrderedAndEachMemberSendsToItsSuccessor) {
  // 8 members, a 8 MB buffer: 14 steps of 1 MB chunks; the default interval is a chunk's time
  // at 10 Gb/s (800 us); two all-reduces 20 ms apart.
  const scenario s =
      drawn("{kind: ring-allreduce, hosts: 'h0_*', size: 8MB, iterations: 2, period: 20ms, start: 1ms}", 1);
  ASSERT_EQ(s.flows.size(), 2u * 14u * 8u);
  for (std::size_t i = 0; i < s.flows.size(); ++i) {
    const std::size_t it = i / (14 * 8), step = i / 8 % 14, member = i % 8;
    EXPECT_EQ(s.flows[i].size, 1000000u);
    EXPECT_EQ(to_ps(s.flows[i].start), 1'000'000'000u + it * 20'000'000'000u + step * 800'000'000u) << i;
    EXPECT_EQ(s.flow_ends[i].first, "h0_" + std::to_string(member));
    EXPECT_EQ(s.flow_ends[i].second, "h0_" + std::to_string((member + 1) % 8));
    if (i >= 8) {
      EXPECT_GE(s.flows[i].start, s.flows[i - 8].start);
    }
  }
}

TEST(RingAllreduce, ShuffledRingIsASeededPermutationOfTheHosts) {
  auto ring = [](uint64_t seed) {
    const scenario s = drawn("{kind: ring-allreduce, hosts: 'h*', size: 32KB, order: shuffled}", seed);
    std::vector<std::string> order;
    for (std::size_t i = 0; i < 32; ++i) order.push_back(s.flow_ends[i].first);
    for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(s.flow_ends[i].second, order[(i + 1) % 32]);
    return order;
  };
  const auto a = ring(1);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), 32u);
  EXPECT_EQ(a, ring(1));
  EXPECT_NE(a, ring(2));
}

TEST(TrafficPatterns, SameSeedSameFlowsOtherSeedOtherFlows) {
  for (const std::string& traffic :
       {std::string(incast_websearch), std::string("{kind: permutation, hosts: 'h*', size: 1MB}"),
        std::string("{kind: ring-allreduce, hosts: 'h*', size: 1MB, order: shuffled}")}) {
    const scenario a = drawn(traffic, 11), b = drawn(traffic, 11), c = drawn(traffic, 12);
    EXPECT_FALSE(a.flows.empty());
    EXPECT_EQ(fingerprint(a), fingerprint(b)) << traffic;
    EXPECT_NE(fingerprint(a), fingerprint(c)) << traffic;
    for (std::size_t i = 0; i < a.flows.size(); ++i) EXPECT_EQ(a.flows[i].name, b.flows[i].name);
  }
  // Flow names are unique within a scenario (a group's tag keeps the events apart).
  const scenario s = drawn(incast_websearch, 1);
  std::set<std::string> names;
  for (const flow_spec& f : s.flows) EXPECT_TRUE(names.insert(f.name).second) << f.name;
}

TEST(TrafficPatterns, BadSettingsAreOneLineErrorsNamingKeyAndValue) {
  expect_error("{kind: incast, src: 'h*', dst: h0_0, cdf: websearch, load: 1.5, stop: 1ms}", "traffic[0].load: '1.5'");
  expect_error("{kind: incast, src: 'h*', dst: h0_0, load: 0.5, stop: 1ms}", "traffic[0].cdf");
  expect_error("{kind: incast, src: 'h*', dst: h0_0, cdf: websearch, size: 1KB, load: 0.5, stop: 1ms}", "not both");
  expect_error("{kind: incast, src: 'h*', dst: h0_0, size: 1KB, load: 0.5, stop: 1ms, fan_in_min: 0}",
               "traffic[0].fan_in_min: '0' must be in [1");
  expect_error("{kind: incast, src: 'h*', dst: h0_0, size: 1KB, load: 0.5, stop: 1ms, fan_in_min: 5, fan_in_max: 4}",
               "traffic[0].fan_in_max: '4' must be in [5");
  expect_error("{kind: incast, src: 'h0_*', dst: h0_0, size: 1KB, load: 0.5, stop: 1ms, fan_in_max: 8}",
               "traffic[0].fan_in_max: '8' exceeds the 7 senders other than 'h0_0'");
  expect_error("{kind: incast, src: [h0_1, h0_1], dst: h0_0, size: 1KB, load: 0.5, stop: 1ms}",
               "traffic[0].src: 'h0_1' is listed twice");
  expect_error("{kind: incast, src: 'h*', dst: h0_0, size: 1KB, load: 0.5}", "traffic[0].stop: missing");
  expect_error("{kind: permutation, hosts: h0_0, size: 1KB}", "traffic[0].hosts: a matrix needs at least two");
  expect_error("{kind: permutation, hosts: 'h*'}", "traffic[0].size: missing");
  expect_error("{kind: all-to-all, hosts: 'h*', size: 0B}", "traffic[0].size: '0B' must be positive");
  expect_error("{kind: all-to-all, hosts: 'h*', rate: 5Gbps, stop: 1ms}", "traffic[0].stop: unknown key");
  expect_error("{kind: ring-allreduce, hosts: 'h*', size: 1MB, order: random}",
               "traffic[0].order: 'random' is not one of {in-order, shuffled}");
  expect_error("{kind: ring-allreduce, hosts: 'h*', size: 1MB, interval: 0us}",
               "traffic[0].interval: must be positive");
  expect_error("{kind: ring-allreduce, hosts: 'h0_*', size: 8MB, period: 1ms}",
               "traffic[0].period: '1ms' is shorter than the 14 steps");
  expect_error("{kind: ring-allreduce, hosts: 'h*', size: 1MB, iterations: 0}", "traffic[0].iterations: '0'");
  expect_error("{kind: broadcast, hosts: 'h*'}", "ring-allreduce}");
}

TEST(PcnClos, IsThePaperFabric) {
  // NSDI'20 section 7.4: 8 pods of 2 leaves, 4 ToRs and 64 hosts; 8 spines; 10 Gb/s below the
  // ToRs, 40 Gb/s above, 5 us everywhere.
  const scenario s = load_scenario_text("platform: {kind: pcn-clos}\n");
  std::map<int, int> switches_per_tier;
  int nics = 0;
  for (const node_spec& n : s.topology.nodes) n.is_switch ? ++switches_per_tier[n.tier] : ++nics;
  EXPECT_EQ(nics, 512);
  EXPECT_EQ(switches_per_tier[1], 32);  // ToRs
  EXPECT_EQ(switches_per_tier[2], 16);  // leaves
  EXPECT_EQ(switches_per_tier[3], 8);   // spines
  ASSERT_EQ(s.topology.links.size(), 512u + 32u * 2u + 16u * 4u);
  for (const link_spec& l : s.topology.links) {
    EXPECT_EQ(l.delay, sc_core::sc_time(5, sc_core::SC_US));
    EXPECT_EQ(l.rate.bps, l.a[0] == 'h' ? 10e9 : 40e9) << l.a << "-" << l.b;
  }
  // Leaf i of every pod reaches spines 4i..4i+3: every pod reaches every spine once.
  std::set<std::string> spines_of_pod3;
  for (const link_spec& l : s.topology.links)
    if (l.a.rfind("l3_", 0) == 0) spines_of_pod3.insert(l.b);
  EXPECT_EQ(spines_of_pod3.size(), 8u);
  try {
    load_scenario_text("platform: {kind: pcn-clos, leaves: 3}\n");
    ADD_FAILURE();
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("platform.spines: '8' must be a multiple of leaves (3)"), std::string::npos)
        << e.what();
  }
}
