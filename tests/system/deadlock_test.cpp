// PFC deadlock from a cyclic buffer dependency (scenarios/pfc-deadlock.yaml), and the static
// routes that create it.
#include <gtest/gtest.h>

#include <set>

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
  run_options options;
  options.sets = {{"s*.prio3.lossless", "false"}};
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), options);
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

// --- detection (platforms/deadlock_detector.*) ---

namespace {
// The scenario file's text with `platform:` lines appended right after its key (for IB).
std::string with_platform_line(const std::string& file, const std::string& line) {
  std::string yaml = test::slurp(test::scenario_path(file));
  yaml.insert(yaml.find("platform:\n") + 10, "  " + line + "\n");
  return yaml;
}
}  // namespace

TEST(DeadlockDetector, ReportsTheRingsThreeSwitchCycleOnce) {
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), {});
  sim.run();
  nlohmann::json s = sim.summary();
  ASSERT_EQ(s["deadlocks"].size(), 1u) << s["deadlocks"].dump(1);
  const nlohmann::json& d = s["deadlocks"][0];
  EXPECT_EQ(d["kind"], "pfc");
  // The clockwise ring ports, each waiting on the next switch (s0 -> s1 -> s2 -> s0).
  ASSERT_EQ(d["cycle"].size(), 3u);
  std::set<std::pair<std::string, std::string>> hops;
  for (const auto& m : d["cycle"]) {
    EXPECT_EQ(m["priority"], 3);
    const std::string port = m["port"];
    hops.insert({port.substr(0, port.find('.')), m["peer"].get<std::string>()});
  }
  EXPECT_EQ(hops, (std::set<std::pair<std::string, std::string>>{{"s0", "s1"}, {"s1", "s2"}, {"s2", "s0"}}));
  for (std::size_t i = 0; i < 3; ++i)  // each member waits on the next one's switch
    EXPECT_EQ(d["cycle"][i]["peer"].get<std::string>(),
              d["cycle"][(i + 1) % 3]["port"].get<std::string>().substr(0, 2));
  // The cycle closed within the first 200 us; found at the first check 500 us (persist) later.
  const double start = d["start_us"], found = d["detected_us"];
  EXPECT_GT(start, 0);
  EXPECT_LT(start, 200);
  EXPECT_GE(found, start + 500);
  EXPECT_LT(found, start + 500 + 50 + 1e-6);
  for (const auto& m : d["cycle"]) EXPECT_LE(m["since_us"].get<double>(), start);
}

TEST(DeadlockDetector, StopEndsTheRunAtTheDetection) {
  run_options o;
  o.sets = {{"deadlock.stop", "true"}, {"deadlock.persist", "100us"}, {"deadlock.interval", "10us"}};
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), o);
  sim.run();
  nlohmann::json s = sim.summary();
  ASSERT_EQ(s["deadlocks"].size(), 1u);
  const double found = s["deadlocks"][0]["detected_us"];
  EXPECT_LT(found, 400);
  EXPECT_NEAR(sc_core::sc_time_stamp().to_seconds() * 1e6, found, 1e-3);  // the run ended there
}

TEST(DeadlockDetector, CliPrintsTheCycleOnStderr) {
  auto r = test::run_cli("run " + test::scenario_path("pfc-deadlock.yaml") + " --until 1ms -q", "&1 >/dev/null");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sluice: PFC deadlock found at "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("prio 3 -> "), std::string::npos) << r.output;
}

TEST(DeadlockDetector, NoDeadlockWithoutACycle) {
  // Heavy congestion and long pauses, but a tree: nothing to report.
  nlohmann::json s = test::run_scenario(
      "leaf-spine.yaml", {{"*.mmu.threshold", "static"}, {"deadlock.persist", "50us"}, {"deadlock.interval", "10us"}});
  EXPECT_GT(s["congestion_tree"]["max_ports_paused"].get<double>(), 0);
  EXPECT_TRUE(s["deadlocks"].empty()) << s["deadlocks"].dump(1);
}

TEST(DeadlockDetector, NoDeadlockWhenTheRingIsLossy) {
  nlohmann::json s = test::run_scenario("pfc-deadlock.yaml", {{"s*.prio3.lossless", "false"}});
  EXPECT_TRUE(s["deadlocks"].empty());
}

TEST(DeadlockDetector, ReportsThePcnPodsCycle) {
  simulation sim(load_scenario_file(test::scenario_path("pcn-deadlock-pod.yaml")), {});
  sim.run();
  nlohmann::json s = sim.summary();
  ASSERT_GE(s["deadlocks"].size(), 1u);
  const nlohmann::json& d = s["deadlocks"][0];
  // The cyclic buffer dependency runs through both leaves and two middle ToRs, never T0 or T3.
  std::set<std::string> switches;
  for (const auto& m : d["cycle"]) switches.insert(m["port"].get<std::string>().substr(0, 2));
  EXPECT_TRUE(switches.count("L0") && switches.count("L1")) << d.dump(1);
  EXPECT_FALSE(switches.count("T0") || switches.count("T3")) << d.dump(1);
  EXPECT_EQ(d["cycle"].size(), 4u) << d.dump(1);
  EXPECT_EQ(s["totals"]["drops"], 0);
}

TEST(DeadlockDetector, ReportsACreditLoopDeadlockOnInfiniBand) {
  // The scenario's PFC thresholds mean nothing on credit-controlled ports: allowed, and warned.
  run_options o;
  o.allow_inert = true;
  simulation sim(load_scenario_text(with_platform_line("pfc-deadlock.yaml", "link_layer: ib"), "test"), o);
  sim.run();
  nlohmann::json s = sim.summary();
  ASSERT_EQ(s["deadlocks"].size(), 1u) << s["deadlocks"].dump(1);
  EXPECT_EQ(s["deadlocks"][0]["kind"], "credit");
  EXPECT_EQ(s["deadlocks"][0]["cycle"].size(), 3u);
  for (const auto& m : s["deadlocks"][0]["cycle"]) EXPECT_EQ(m["priority"], 3);
}

// --- PFC watchdog ---

TEST(PfcWatchdog, DropBreaksTheDeadlockAndCountsEveryAction) {
  run_options o;
  o.sets = {{"s*.port*.pfc.watchdog.action", "drop"},
            {"s*.port*.pfc.watchdog.detect", "100us"},
            {"s*.port*.pfc.watchdog.restore", "50us"}};
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), o);
  sim.run();
  nlohmann::json s = sim.summary();
  double storms = 0, restores = 0, dropped = 0;
  for (const char* sw : {"s0", "s1", "s2"})
    for (int p = 0; p < 3; ++p) {
      const std::string port = std::string(sw) + ".port" + std::to_string(p) + ".prio3.";
      storms += test::counter(s, port + "watchdog_storms");
      restores += test::counter(s, port + "watchdog_restores");
      dropped += test::counter(s, port + "watchdog_dropped");
    }
  EXPECT_GT(storms, 0);
  EXPECT_GT(restores, 0);
  EXPECT_GT(dropped, 0);
  EXPECT_LE(restores, storms);
  EXPECT_TRUE(s["deadlocks"].empty()) << s["deadlocks"].dump(1);
  // Frames still arrive long after the ring would have stopped for good (nothing after 200 us
  // without the watchdog): each restore lets some through before the cycle closes again.
  EXPECT_GT(delivered_after(sim, 1000), 0.0);
  bool warned = false;
  for (const auto& w : s["warnings"]) warned |= w.get<std::string>().find("PFC watchdog") != std::string::npos;
  EXPECT_TRUE(warned) << s["warnings"].dump(1);
}

TEST(PfcWatchdog, IgnorePauseSendsRegardlessAndCountsTheIgnoredFrames) {
  nlohmann::json s = test::run_scenario("pfc-deadlock.yaml", {{"s*.port*.pfc.watchdog.action", "ignore-pause"},
                                                              {"s*.port*.pfc.watchdog.detect", "100us"},
                                                              {"s*.port*.pfc.watchdog.restore", "50us"}});
  double storms = 0, ignored = 0;
  for (const char* sw : {"s0", "s1", "s2"})
    for (int p = 0; p < 3; ++p) {
      const std::string port = std::string(sw) + ".port" + std::to_string(p) + ".prio3.";
      storms += test::counter(s, port + "watchdog_storms");
      ignored += test::counter(s, port + "watchdog_ignored");
    }
  EXPECT_GT(storms, 0);
  EXPECT_GT(ignored, 0);
  EXPECT_TRUE(s["deadlocks"].empty());
  double rx = 0;
  for (const auto& f : s["flows"]) rx += f["rx_bytes"].get<double>();
  EXPECT_GT(rx, 1e6);
}

TEST(PfcWatchdog, OffByDefaultAndQuietWithoutAStorm) {
  // The dumbbell's switches pause each other (on the incast nothing pauses a switch port: its
  // watchdog would be an inert setting).
  nlohmann::json s = test::run_scenario(
      "dumbbell.yaml", {{"sw*.port*.pfc.watchdog.action", "drop"}, {"sw*.port*.pfc.watchdog.detect", "5ms"}});
  for (const auto& [name, v] : s["counters"].items()) EXPECT_EQ(name.find("watchdog"), std::string::npos) << name;
}
