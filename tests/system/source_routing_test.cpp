// Source adaptive routing, R3C2 (issue 21), end to end: the switches honour the path id, a flow
// moves off a congested path within the bound the notification loop gives, its receiver
// resequences, and the settings' errors.
#include <gtest/gtest.h>

#include "models/core/probe.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {

// The leaf-spine hotspot of adaptive_routing_test.cpp, with h0_0 choosing its paths: flow 0
// (h0_0 -> h1_0) starts on path 0, d-mod-k's (h1_0 is NIC 2; 2 paths: 2 mod 2 = 0), which l0
// maps to s0 (l0.port2); path 1 is s1 (l0.port3). Flow 1 (h2_0 -> h1_1) is pinned to s0 by l2's
// `first`, so s0's port to l1 congests.
const char* hotspot = R"(
platform: {kind: leaf-spine, leaves: 3, spines: 2, hosts: 2, link_rate: 40Gbps, link_delay: 1us}
traffic:
  - {kind: constant, src: h0_0, dst: h1_0, rate: 40Gbps, priority: 3, cc: qcn}
  - {kind: constant, src: h2_0, dst: h1_1, rate: 40Gbps, priority: 3, cc: qcn}
params: {h0_0.routing: r3c2, l2.forwarding: first}
run: {until: 300us, seed: 3}
)";

}  // namespace

// The bound: s0's QCN congestion point samples after qcn.sample_base x (1 + sample_jitter) =
// 172.5 KB have arrived, at least at the 40 Gb/s the congested port drains, so within 34.5 us of
// the onset (the flows meet at s0 about 4 us after they start). The CNM, which names the sampled
// frame's path, reaches h0_0 two links and l0's pipeline later (2.6 us); h0_0 activates path 1
// at once and its next frame (0.2 us at most) takes it, reaching l0's egress a link later
// (1.2 us): 4 + 34.5 + 2.6 + 0.2 + 1.2 = 42.5 us.
TEST(SourceRoutingSystem, MovesTrafficOffACongestedPathWithinTheNotificationBound) {
  auto sim = test::make_sim(hotspot);
  uint64_t first_s0 = 0, moved = 0, frames = 0, off_tree = 0;
  probe_registry::instance().subscribe("l0.port*.egress.enqueue", [&](const probe_point&, const probe_event& e) {
    if (!e.frame || e.frame->kind != frame_kind::data || e.frame->flow_id != 0) return;
    ++frames;
    off_tree += e.frame->path == 0 || e.port != 1 + e.frame->path;  // path 1 (tag 1): s0, port 2
    if (e.port == 2 && !first_s0) first_s0 = e.time_ps;
    if (e.port == 3 && !moved) moved = e.time_ps;
  });
  sim->run();
  const nlohmann::json s = sim->summary();
  ASSERT_GT(first_s0, 0u) << "flow 0 did not start on s0: the scenario no longer makes the hotspot";
  ASSERT_GT(moved, first_s0);
  EXPECT_LE(moved, 42'500'000u) << "moved at " << moved / 1e6 << " us";
  EXPECT_GT(frames, 1000u);
  EXPECT_EQ(off_tree, 0u);  // every frame tagged, and on its path's tree
  EXPECT_GE(test::counter(s, "h0_0.r3c2_notifications"), 1);
  EXPECT_EQ(test::counter(s, "h0_0.r3c2_activations"), 1);
  // Each path kept its own limiter: path 0's was cut by its notifications, and both carried data.
  const fabric& f = sim->fabric_model();
  const multipath_flow* m = f.nic_at(f.flows[0].spec.src).paths_of(0);
  ASSERT_NE(m, nullptr);
  EXPECT_GT(m->path_limiter(0).rate().bps, 0);
  EXPECT_LT(m->path_limiter(0).rate().bps, 40e9);
  EXPECT_GT(m->frames_on(0), 0u);
  EXPECT_GT(m->frames_on(1), m->frames_on(0));
  EXPECT_EQ(f.nic_at(f.flows[1].spec.src).paths_of(1), nullptr);  // h2_0 leaves routing to the fabric
  // Spread over two paths, the flow arrives out of order and its receiver puts it back.
  EXPECT_GT(test::counter(s, "h1_0.resequenced"), 0);
  EXPECT_EQ(test::counter(s, "h1_0.out_of_order_delivered"), 0);
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_GT(s["flows"][0]["throughput_bps"].get<double>(), 0.85 * 40e9);  // 35.97 Gb/s
}

// The k = 4 fat-tree permutation from the CLI: each flow's first path is d-mod-k's, which this
// permutation's flows share with no other, so every flow runs at line rate (ECMP: 24.9 Gb/s).
TEST(SourceRoutingSystem, FatTreePermutationAtLineRateFromTheCli) {
  const std::string out = ::testing::TempDir() + "/r3c2-" + std::to_string(getpid());
  const std::string args = "run " + test::scenario_path("fat-tree.yaml") +
                           " --cc qcn --set 'h*.routing=r3c2' --until 500us --out " + out + " -q";
  ASSERT_EQ(test::run_cli(args).status, 0) << args;
  const nlohmann::json s = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  for (const auto& fl : s["flows"]) EXPECT_GT(fl["throughput_bps"].get<double>(), 0.95 * 40e9) << fl["name"];
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_TRUE(s["deadlocks"].empty());
}

TEST(SourceRoutingSystem, BadSettingsAreOneLineErrors) {
  const std::string scen = test::scenario_path("fat-tree.yaml");
  test::expect_cli_error("run " + scen + " --set 'h0_0_0.routing=switches'",
                         "h0_0_0.routing: 'switches' is not one of {fabric, r3c2}");
  test::expect_cli_error("run " + scen + " --set 'h0_0_0.routing=r3c2' --set 'h0_0_0.r3c2.max_active=0'",
                         "h0_0_0.r3c2.max_active");
  test::expect_cli_error("run " + scen + " --set 'h0_0_0.routing=r3c2' --set 'h0_0_0.r3c2.aging=0s'",
                         "h0_0_0.r3c2.aging");
  test::expect_cli_error("run " + scen + " --set 'h0_0_0.routing=r3c2' --set 'h0_0_0.r3c2.paths=5'",
                         "h0_0_0.r3c2.paths: '5' is more than the 4 paths the fabric's trees offer");
  test::expect_cli_error("run " + scen + " --set 'h0_0_0.r3c2.aging=50us'", "h0_0_0.routing is 'fabric'");
  const std::string dmodk = test::write_temp("r3c2-dmodk.yaml",
                                             "platform: {kind: fat-tree, k: 4, routing: d-mod-k}\n"
                                             "traffic: [{kind: constant, src: h0_0_0, dst: h1_0_0, rate: 40Gbps}]\n"
                                             "params: {h0_0_0.routing: r3c2}\nrun: {until: 10us}\n");
  test::expect_cli_error("run " + dmodk,
                         "h0_0_0.routing: 'r3c2' needs the switches' equal-cost ports, and platform routing "
                         "'d-mod-k' keeps one");
}
