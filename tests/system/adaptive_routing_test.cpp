// Adaptive routing (issue 21): the k = 4 fat-tree permutation at line rate under adaptive and
// adaptive-local, a flow moved off a remotely congested port within the bound the notification
// loop gives and kept off it for the aging time, no frame sent back to its ingress port,
// receivers that resequence, and the ar.* settings' errors.
#include <gtest/gtest.h>

#include <sstream>

#include "models/core/probe.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {

// Mean over flows and over the samples from `from_us` on of flow_throughput.csv, Gb/s.
double mean_flow_gbps_from(const std::string& csv_path, double from_us) {
  std::istringstream in(test::slurp(csv_path));
  std::string line;
  std::getline(in, line);  // header
  double sum = 0;
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    std::getline(row, cell, ',');
    if (std::stod(cell) <= from_us) continue;
    while (std::getline(row, cell, ',')) {
      sum += std::stod(cell);
      ++n;
    }
  }
  return n ? sum / n : 0;
}

double total(const nlohmann::json& s, const std::string& suffix) {
  double n = 0;
  for (const auto& [k, v] : s["counters"].items())
    if (k.size() >= suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
      n += v.get<double>();
  return n;
}

// The fat-tree permutation, run by the CLI to 1.5 ms: the flows' mean throughput after 1 ms.
void expect_line_rate(const std::string& forwarding, const std::string& cc) {
  const std::string out = ::testing::TempDir() + "/ar-" + std::to_string(getpid()) + "-" + forwarding;
  const std::string args = "run " + test::scenario_path("fat-tree.yaml") + " --cc " + cc +
                           " --set '*.forwarding=" + forwarding + "' --until 1.5ms --out " + out + " -q";
  ASSERT_EQ(test::run_cli(args).status, 0) << args;
  const double gbps = mean_flow_gbps_from(out + "/flow_throughput.csv", 1000);
  EXPECT_GE(gbps, 0.9 * 40) << forwarding;  // ECMP: 24.9 Gb/s
  const nlohmann::json s = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_EQ(total(s, ".out_of_order_delivered"), 0);
  // Minimal up*/down* paths only: no cycle of paused queues, so the deadlock detector (always
  // on) stays silent.
  ASSERT_TRUE(s.contains("deadlocks"));
  EXPECT_TRUE(s["deadlocks"].empty()) << s["deadlocks"].dump();
}

// A leaf-spine hotspot: flow 0 (h0_0 -> h1_0) is the one l0 routes adaptively; flow 1 (h2_0 ->
// h1_1, both at line rate) is pinned to s0 by l2's `first`, so s0's port to l1 congests if flow 0
// takes s0. With seed 3, flow 0's first choice (its ECMP port) is s0 (l0.port2); s1 is l0.port3.
const char* hotspot = R"(
platform: {kind: leaf-spine, leaves: 3, spines: 2, hosts: 2, link_rate: 40Gbps, link_delay: 1us}
traffic:
  - {kind: constant, src: h0_0, dst: h1_0, rate: 40Gbps, priority: 3, cc: qcn}
  - {kind: constant, src: h2_0, dst: h1_1, rate: 40Gbps, priority: 3, cc: qcn}
params: {l0.forwarding: adaptive, l2.forwarding: first}
run: {until: 300us, seed: 3}
)";

}  // namespace

TEST(AdaptiveRouting, FatTreePermutationAtLineRateWithQcn) { expect_line_rate("adaptive", "qcn"); }

TEST(AdaptiveRouting, FatTreePermutationAtLineRateLocal) { expect_line_rate("adaptive-local", "none"); }

// The bound: QCN's congestion point at s0 samples after qcn.sample_base x (1 + sample_jitter) =
// 172.5 KB have arrived; into a congested port they arrive at least at its 40 Gb/s, so within
// 34.5 us of the onset (the two flows meet at s0 about 4 us after they start), with the queue
// then past Qeq (80 Gb/s in, 40 out). The CNM reaches l0 one link and a pipeline later (1.6 us),
// and l0 moves the flow at once: 4 + 34.5 + 1.6 = 40.1 us. The congestion-table entry of (h1_0,
// s0) keeps s0 congested for ar.aging after the last notification, so the flow does not return
// to s0 before then.
TEST(AdaptiveRouting, MovesAFlowOffARemotelyCongestedPortWithinTheNotificationBound) {
  auto sim = test::make_sim(hotspot);
  uint64_t first_s0 = 0, moved = 0, back = 0;
  probe_registry::instance().subscribe("l0.port*.egress.enqueue", [&](const probe_point&, const probe_event& e) {
    if (!e.frame || e.frame->kind != frame_kind::data || e.frame->flow_id != 0) return;
    if (e.port == 2 && !first_s0) first_s0 = e.time_ps;
    if (e.port == 3 && !moved) moved = e.time_ps;
    if (e.port == 2 && moved && !back) back = e.time_ps;
  });
  sim->run();
  const nlohmann::json s = sim->summary();
  ASSERT_GT(first_s0, 0u) << "flow 0 did not start on s0: the scenario no longer makes the hotspot";
  ASSERT_GT(moved, first_s0);
  EXPECT_LE(moved, 40'100'000u) << "moved at " << moved / 1e6 << " us";
  EXPECT_GE(test::counter(s, "l0.ar_notifications"), 1);
  EXPECT_GE(test::counter(s, "l0.ar_absorbed"), 1);  // the moved flow's source kept its rate
  if (back) {
    EXPECT_GE(back - moved, 100'000'000u) << "back on s0 " << (back - moved) / 1e6 << " us after the move";
  }
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_EQ(test::counter(s, "h1_0.out_of_order_delivered"), 0);
  EXPECT_GT(s["flows"][0]["throughput_bps"].get<double>(), 0.9 * 40e9);
}

// Per-packet choice moves frames between the spines all the time: frames arrive out of order,
// the receiver holds them until the gap fills, and delivers every byte in order. No data frame
// leaves a switch by the port it came in on.
TEST(AdaptiveRouting, PerPacketReordersAndTheReceiverResequences) {
  auto sim = test::make_sim(hotspot, {{"l0.ar.granularity", "packet"}});
  uint64_t data = 0, back_to_ingress = 0;
  probe_registry::instance().subscribe("*.egress.enqueue", [&](const probe_point&, const probe_event& e) {
    if (!e.frame || e.frame->kind != frame_kind::data) return;
    ++data;
    back_to_ingress += e.frame->ingress_port == e.port;
  });
  sim->run();
  const nlohmann::json s = sim->summary();
  EXPECT_GT(data, 1000u);
  EXPECT_EQ(back_to_ingress, 0u);
  EXPECT_GT(test::counter(s, "l0.ar_reroutes"), 10);
  EXPECT_GT(test::counter(s, "h1_0.resequenced"), 0);
  EXPECT_GT(test::counter(s, "h1_0.resequencing_delay_max"), 0);
  EXPECT_EQ(test::counter(s, "h1_0.out_of_order_delivered"), 0);
  EXPECT_EQ(s["totals"]["drops"], 0);
  // Every byte received was delivered, in order: the flow's count is the bytes sent less those
  // still on the wire or held.
  const auto& f = s["flows"][0];
  EXPECT_LE(f["rx_bytes"].get<double>(), f["tx_bytes"].get<double>());
  EXPECT_GT(f["rx_bytes"].get<double>(), 0.9 * f["tx_bytes"].get<double>());
}

TEST(AdaptiveRouting, BadSettingsAreOneLineErrors) {
  const std::string scen = test::scenario_path("fat-tree.yaml");
  test::expect_cli_error("run " + scen + " --set 'e0_0.ar.granularity=sometimes'",
                         "e0_0.ar.granularity: 'sometimes' is not one of {flow, flowlet, packet}");
  test::expect_cli_error("run " + scen + " --set 'e0_0.forwarding=adaptive' --set 'e0_0.ar.aging=0s'", "e0_0.ar.aging");
  test::expect_cli_error("run " + scen + " --set 'e0_0.forwarding=adaptive' --set 'e0_0.ar.flowlet_gap=-1us'",
                         "e0_0.ar.flowlet_gap");
  test::expect_cli_error("run " + scen + " --set 'e0_0.forwarding=adaptive' --set 'e0_0.ar.absorb=maybe'",
                         "e0_0.ar.absorb");
  test::expect_cli_error("run " + scen + " --set 'e0_0.forwarding=fastest'", "e0_0.forwarding: 'fastest'");
}

TEST(AdaptiveRouting, SettingsTheChosenPolicyDoesNotReadAreInert) {
  const std::string scen = test::scenario_path("fat-tree.yaml");
  test::expect_cli_error("run " + scen + " --set '*.ar.aging=50us'",
                         "has no effect on any of its 20 matches (e0_0.ar.aging: e0_0.forwarding is 'ecmp', which "
                         "reads no ar.* setting)");
  test::expect_cli_error("run " + scen + " --set '*.forwarding=adaptive-local' --set '*.ar.aging=50us'",
                         "which keeps no congestion table");
  test::expect_cli_error("run " + scen + " --set '*.forwarding=adaptive' --set '*.ar.queue_threshold=5KB'",
                         "which does not read the local queue");
  test::expect_cli_error("run " + scen + " --set '*.forwarding=adaptive' --set '*.ar.flowlet_gap=5us'",
                         "ar.granularity is 'flow', not 'flowlet'");
  test::expect_cli_error(
      "run " + scen + " --set '*.forwarding=adaptive' --set '*.ar.granularity=packet' --set '*.ar.hold=5us'",
      "ar.granularity is 'packet': nothing is pinned");
  // Accepted where they act.
  EXPECT_EQ(
      test::run_cli("params " + scen +
                    " --set '*.forwarding=adaptive' --set '*.ar.granularity=flowlet' --set '*.ar.flowlet_gap=5us' "
                    "--set '*.ar.aging=50us' --match 'c0.ar.*' -q")
          .status,
      0);
}

// InfiniBand, the same switch AR: on ib-fat-tree.yaml (generated LID tables, credits) with IB
// CCA, as on the CEE fat tree.
TEST(AdaptiveRouting, IbFatTreePermutationAtLineRateWithIbCca) {
  const std::string out = ::testing::TempDir() + "/ar-ib-" + std::to_string(getpid());
  const std::string args = "run " + test::scenario_path("ib-fat-tree.yaml") +
                           " --cc ib-cca --set '*.forwarding=adaptive' --until 1.5ms --out " + out + " -q";
  ASSERT_EQ(test::run_cli(args).status, 0) << args;
  EXPECT_GE(mean_flow_gbps_from(out + "/flow_throughput.csv", 1000), 0.9 * 40);  // ECMP: 24.0, with ib-cca 12.7
  const nlohmann::json s = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_EQ(total(s, ".out_of_order_delivered"), 0);
  EXPECT_TRUE(s["deadlocks"].empty());
}

// BECN-driven on InfiniBand: the leaf-spine hotspot above with IB CCA. s0's port to l1 marks
// FECN, h1_0 answers with BECN CNPs, l0 snoops them on their way to h0_0 and moves flow 0 to s1,
// absorbing them: its source keeps its rate.
TEST(AdaptiveRouting, SnoopedBecnsMoveAFlowOffARemotelyCongestedPortOnInfiniBand) {
  std::string yaml = hotspot;
  for (const char* from : {"link_delay: 1us}", "cc: qcn}"}) ASSERT_NE(yaml.find(from), std::string::npos);
  yaml.replace(yaml.find("link_delay: 1us}"), 16, "link_delay: 1us, link_layer: ib}");
  for (std::size_t at; (at = yaml.find("cc: qcn}")) != std::string::npos;) yaml.replace(at, 8, "cc: ib-cca}");
  auto sim = test::make_sim(yaml);
  uint64_t first_s0 = 0, moved = 0;
  probe_registry::instance().subscribe("l0.port*.egress.enqueue", [&](const probe_point&, const probe_event& e) {
    if (!e.frame || e.frame->kind != frame_kind::data || e.frame->flow_id != 0) return;
    if (e.port == 2 && !first_s0) first_s0 = e.time_ps;
    if (e.port == 3 && !moved) moved = e.time_ps;
  });
  sim->run();
  const nlohmann::json s = sim->summary();
  ASSERT_GT(first_s0, 0u) << "flow 0 did not start on s0";
  EXPECT_GT(moved, first_s0);
  EXPECT_GT(test::counter(s, "s0.port1.prio3.cca.fecn_marks"), 0);
  EXPECT_GE(test::counter(s, "l0.ar_notifications"), 1);  // BECN CNPs snooped
  EXPECT_GE(test::counter(s, "l0.ar_absorbed"), 1);
  EXPECT_GE(test::counter(s, "l0.ar_reroutes"), 1);
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_EQ(test::counter(s, "h1_0.out_of_order_delivered"), 0);
  EXPECT_GT(s["flows"][0]["throughput_bps"].get<double>(), 0.8 * 40e9);
  EXPECT_TRUE(s["deadlocks"].empty());
}
