// PFC deadlock from a cyclic buffer dependency (scenarios/pfc-deadlock.yaml), and the static
// routes that create it.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
// Payload delivered by all flows after `from_us`, from the sampler.
double delivered_after(const simulation& sim, double from_us) {
  const series& s = sim.samples().flow_throughput;
  double sum = 0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.times_us[r] > from_us)
      for (double v : s.rows[r]) sum += v;
  return sum;
}
}  // namespace

TEST(Deadlock, CyclicBufferDependencyStopsEveryFlowForGoodWithoutLoss) {
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), {});
  sim.run();
  nlohmann::json s = sim.summary();
  EXPECT_EQ(s["totals"]["drops"], 0);
  // Nothing moves once the three ring ports have paused one another (well within 200 us).
  EXPECT_EQ(delivered_after(sim, 200), 0.0);
  for (const auto& f : s["flows"]) EXPECT_LT(f["rx_bytes"].get<double>(), 200e3) << f["name"];
  // Each clockwise ring port stays paused for the rest of the run (refreshed, never resumed).
  for (auto [sw, peer] : {std::pair{"s0", "s1"}, {"s1", "s2"}, {"s2", "s0"}}) {
    nlohmann::json p = test::find_port(s, sw, peer, 3);
    EXPECT_GT(p["paused_time_ns"].get<double>(), 0.9 * 2e6) << sw << "->" << peer;
    EXPECT_GE(p["pause_received"].get<uint64_t>(), 4u) << sw << "->" << peer;  // refreshes
    EXPECT_EQ(p["resume_received"], 0) << sw << "->" << peer;
  }
}

TEST(Deadlock, WithoutPfcTheRingKeepsMovingAndDrops) {
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")),
                 run_options{{{"s*.prio3.lossless", "false"}}, {}, {}});
  sim.run();
  nlohmann::json s = sim.summary();
  EXPECT_GT(s["totals"]["drops"].get<uint64_t>(), 0u);
  EXPECT_GT(delivered_after(sim, 1000), 0.0);
}

namespace {
const char* ring_yaml = R"(
platform:
  kind: custom
  switches: [s0, s1, s2]
  nics: [h0, h1, h2]
  links: [{a: h0, b: s0}, {a: h1, b: s1}, {a: h2, b: s2}, {a: s0, b: s1}, {a: s1, b: s2}, {a: s2, b: s0}]
  routes: [ROUTES]
traffic: [{kind: constant, src: h0, dst: h1, rate: 1Gbps}]
)";

void expect_route_error(const std::string& routes, const std::string& fragment) {
  std::string yaml = ring_yaml;
  yaml.replace(yaml.find("ROUTES"), 6, routes);
  try {
    test::make_sim(yaml);
    ADD_FAILURE() << "no error for " << routes;
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(StaticRoutes, ALoopIsRejected) {
  expect_route_error("{switch: s0, dst: h1, via: s2}, {switch: s2, dst: h1, via: s0}", "routing loop");
}
TEST(StaticRoutes, ANonNeighbourIsRejected) {
  expect_route_error("{switch: s0, dst: h1, via: h2}", "routes[0].via: 'h2' is not a neighbour of 's0'");
}
TEST(StaticRoutes, AWrongNicIsRejected) {
  expect_route_error("{switch: s1, dst: h1, via: s2}, {switch: s2, dst: h1, via: h2}", "forwards it to 'h2'");
}
TEST(StaticRoutes, UnknownSwitchOrDestinationIsNamed) {
  expect_route_error("{switch: s9, dst: h1, via: s1}", "routes[0].switch: 's9'");
}
TEST(StaticRoutes, ARouteReplacesTheShortestPath) {
  std::string yaml = ring_yaml;
  yaml.replace(yaml.find("ROUTES"), 6, "{switch: s0, dst: h1, via: s2}");
  auto sim = test::make_sim(yaml);
  sim->run();
  nlohmann::json s = sim->summary();
  // h0 -> h1 now goes s0 -> s2 -> s1: the direct s0 -> s1 link carries no data.
  EXPECT_GT(test::utilization(s, "s0->s2"), 0.01);
  EXPECT_LT(test::utilization(s, "s0->s1"), 0.001);
  EXPECT_GT(test::find_flow(s, "h0->h1")["rx_bytes"].get<double>(), 0);
}
