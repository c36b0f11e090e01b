// The fat-tree platform kind, the builder registry, routing over tiered Clos fabrics, and
// per-port MAC addresses.
#include <gtest/gtest.h>

#include <set>

#include "platforms/builders.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {

scenario load(const std::string& platform, const std::string& rest = "") {
  return load_scenario_text("platform: " + platform + "\n" + rest, "t.yaml");
}

std::size_t count_switches(const topology_spec& t) {
  std::size_t n = 0;
  for (const node_spec& s : t.nodes) n += s.is_switch;
  return n;
}

void expect_error(const std::string& platform, std::initializer_list<const char*> fragments) {
  try {
    load(platform);
    ADD_FAILURE() << "no error for: " << platform;
  } catch (const config_error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

// Follows every ECMP branch from `src` towards `dst` through the fabric's tables; returns the
// longest path in switch hops, or -1 on a dead end, a loop or a wrong delivery.
int longest_path(const fabric& f, const std::string& src, const std::string& dst, uint32_t dst_id) {
  std::function<int(const std::string&, int)> walk = [&](const std::string& sw, int depth) {
    if (depth > 8) return -1;
    const switch_model* s = f.switch_named(sw);
    if (!s) return -1;
    const std::vector<uint16_t>& ports = s->forwarding.table.ports(dst_id);
    if (ports.empty()) return -1;
    int longest = 0;
    for (uint16_t p : ports) {
      const std::string& next = f.peer_of(sw, p);
      int d = next == dst ? depth : walk(next, depth + 1);
      if (d < 0) return -1;
      longest = std::max(longest, d);
    }
    return longest;
  };
  return walk(f.peer_of(src, 0), 1);
}

}  // namespace

TEST(FatTree, ThreeTierK4HasTheTextbookCounts) {
  topology_spec t = load("{kind: fat-tree, k: 4, tiers: 3}").topology;
  EXPECT_EQ(count_switches(t), 4u * (2 + 2) + 4);      // k pods x (k/2 edge + k/2 agg) + (k/2)^2 cores
  EXPECT_EQ(t.nodes.size() - count_switches(t), 16u);  // k^3/4 hosts
  EXPECT_EQ(t.links.size(), 16u + 16 + 16);            // host-edge, edge-agg, agg-core
}

TEST(FatTree, TwoTierK4IsLeafSpine) {
  topology_spec t = load("{kind: fat-tree, k: 4, tiers: 2}").topology;
  EXPECT_EQ(count_switches(t), 4u + 2);               // k leaves, k/2 spines
  EXPECT_EQ(t.nodes.size() - count_switches(t), 8u);  // k/2 hosts per leaf
  EXPECT_EQ(t.links.size(), 8u + 8);                  // host-leaf, leaf-spine
}

TEST(FatTree, OversubscribedEdgesCarryMoreHostsThanUplinks) {
  topology_spec t = load("{kind: fat-tree, k: 4, hosts_per_edge: 6}").topology;  // 3:1 at the edge
  EXPECT_EQ(t.nodes.size() - count_switches(t), 8u * 6);
  int edge_ports = 0, host_ports = 0;
  for (const link_spec& l : t.links)
    if (l.a == "e0_0" || l.b == "e0_0") {
      ++edge_ports;
      host_ports += l.a[0] == 'h';
    }
  EXPECT_EQ(host_ports, 6);
  EXPECT_EQ(edge_ports, 6 + 2);
}

TEST(FatTree, PerTierRatesAndDelays) {
  topology_spec t =
      load("{kind: fat-tree, k: 4, host_rate: 25Gbps, edge_rate: 50Gbps, core_rate: 100Gbps, core_delay: 2us}")
          .topology;
  for (const link_spec& l : t.links) {
    const double want = l.a[0] == 'h' ? 25e9 : l.a[0] == 'e' ? 50e9 : 100e9;
    EXPECT_EQ(l.rate.bps, want) << l.a << "-" << l.b;
    EXPECT_EQ(l.delay, sc_core::sc_time(l.a[0] == 'a' ? 2 : 1, sc_core::SC_US)) << l.a << "-" << l.b;
  }
}

TEST(FatTree, BadKeysAreOneLineErrors) {
  expect_error("{kind: fat-tree, k: 3}", {"platform.k: '3' must be even"});
  expect_error("{kind: fat-tree, k: 66}", {"platform.k", "66"});
  expect_error("{kind: fat-tree, k: 4, tiers: 4}", {"platform.tiers", "'4'"});
  expect_error("{kind: fat-tree, k: 4, tiers: 2, core_rate: 40Gbps}", {"platform.core_rate", "3-tier"});
  expect_error("{kind: fat-tree, k: 4, hosts_per_edge: 0}", {"platform.hosts_per_edge"});
  expect_error("{kind: fat-tree, k: 64, hosts_per_edge: 100}", {"platform.hosts_per_edge", "204800 hosts"});
  expect_error("{kind: fat-tree, k: 4, routing: random}", {"platform.routing", "d-mod-k"});
  expect_error("{kind: fat-tree, k: 4, pods: 2}", {"platform.pods", "unknown key"});
  expect_error("{kind: fat-tree, k: 4, host_rate: 0bps}", {"platform.host_rate"});
}

TEST(Builders, UnknownKindListsTheRegisteredKinds) {
  expect_error("{kind: torus}", {"platform.kind: 'torus' is not one of {incast, dumbbell, parking-lot, pcn-basic, "
                                 "leaf-spine, fat-tree, pcn-clos, custom}"});
  register_platform_kind("pair", [](section&) {
    topology_spec t;
    t.add_nic("a");
    t.add_nic("b");
    t.connect("a", "b", default_link_rate, default_link_delay);
    return t;
  });
  EXPECT_EQ(platform_kinds().back(), "pair");
  EXPECT_EQ(load("{kind: pair}").topology.links.size(), 1u);
}

TEST(FatTree, EveryHostReachesEveryOtherWithinFiveSwitches) {
  auto sim = test::make_sim("platform: {kind: fat-tree, k: 4}\n");
  const fabric& f = sim->fabric_model();
  const topology_spec& t = f.spec().topology;
  int checked = 0;
  for (uint32_t s = 0; s < t.nodes.size(); ++s)
    for (uint32_t d = 0; d < t.nodes.size(); ++d) {
      if (t.nodes[s].is_switch || t.nodes[d].is_switch || s == d) continue;
      const int hops = longest_path(f, t.nodes[s].name, t.nodes[d].name, d);
      // Same edge: 1 switch; same pod: 3 (edge, agg, edge); other pod: 5 (via a core).
      const bool same_pod = t.nodes[s].name.substr(0, 3) == t.nodes[d].name.substr(0, 3);
      const bool same_edge = t.nodes[s].name.substr(0, 5) == t.nodes[d].name.substr(0, 5);
      EXPECT_EQ(hops, same_edge ? 1 : same_pod ? 3 : 5) << t.nodes[s].name << " -> " << t.nodes[d].name;
      ++checked;
    }
  EXPECT_EQ(checked, 16 * 15);
}

TEST(FatTree, DModKKeepsOnePathPerDestinationAndBalancesUplinks) {
  auto sim = test::make_sim("platform: {kind: fat-tree, k: 4, routing: d-mod-k}\n");
  const fabric& f = sim->fabric_model();
  const topology_spec& t = f.spec().topology;
  std::map<std::string, int> uses;  // agg -> core uplinks, over all remote destinations
  for (uint32_t d = 0; d < t.nodes.size(); ++d) {
    if (t.nodes[d].is_switch) continue;
    for (const auto& sw : f.switches) {
      const std::vector<uint16_t>& ports = sw->forwarding.table.ports(d);
      EXPECT_EQ(ports.size(), 1u) << sw->name() << " towards " << t.nodes[d].name;
      if (ports.size() == 1 && std::string(sw->name())[0] == 'a' && f.peer_of(sw->name(), ports[0])[0] == 'c')
        ++uses[std::string(sw->name()) + "->" + f.peer_of(sw->name(), ports[0])];
    }
  }
  // Each of the 8 aggs sends the 12 hosts of other pods over its 2 core uplinks, 6 each.
  EXPECT_EQ(uses.size(), 16u);
  for (const auto& [uplink, n] : uses) EXPECT_EQ(n, 6) << uplink;
}

TEST(FatTree, EcmpSpreadsFlowsOverEveryCore) {
  // Every host of pod 0 sends 8 flows to a host of pod 2: 32 flows cross the cores.
  auto sim = test::make_sim(
      "platform: {kind: fat-tree, k: 4}\n"
      "traffic:\n"
      "  - {kind: constant, src: 'h0_*', dst: h2_0_0, rate: 1Gbps, count: 8}\n"
      "run: {until: 100us}\n");
  sim->run();
  nlohmann::json s = sim->summary();
  EXPECT_EQ(s["totals"]["drops"], 0);
  // Pod 0's aggs reach all four cores (a0_0: c0, c1; a0_1: c2, c3); each carries some flows.
  for (const char* up : {"a0_0->c0", "a0_0->c1", "a0_1->c2", "a0_1->c3"})
    EXPECT_GT(test::utilization(s, up), 0.0) << up;
  for (const char* down : {"c0->a2_0", "c1->a2_0", "c2->a2_1", "c3->a2_1"})
    EXPECT_GT(test::utilization(s, down), 0.0) << down;
}

// Ports are numbered up to 4096 per switch: addresses stay unique past 255 ports (the old
// derivation kept 8 bits of port).
TEST(MacAddresses, UniqueForEveryPortOfAWideSwitch) {
  auto sim = test::make_sim("platform: {kind: incast, senders: 600}\n");
  const fabric& f = sim->fabric_model();
  std::set<uint64_t> seen;
  std::size_t ports = 0;
  for (const auto& sw : f.switches)
    for (const auto& p : sw->ports) {
      seen.insert(p->mac.mac_address());
      ++ports;
    }
  for (const auto& n : f.nics) {
    seen.insert(n->port.mac.mac_address());
    ++ports;
  }
  EXPECT_EQ(ports, 601u + 601u);
  EXPECT_EQ(seen.size(), ports);
  for (uint64_t mac : seen) EXPECT_EQ(mac >> 40, 0x02u) << std::hex << mac;  // locally administered unicast
}
