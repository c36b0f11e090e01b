// What scenarios/README.md says the dumbbell and parking-lot scenarios show.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

using test::utilization;

TEST(Topologies, DumbbellSharesTheBottleneckFairlyWithoutLoss) {
  nlohmann::json s = test::run_scenario("dumbbell.yaml");
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_GT(s["totals"]["pause_frames"].get<uint64_t>(), 0u);  // 4 x 20 Gb/s offered to 40 Gb/s
  EXPECT_GE(utilization(s, "sw0->sw1"), 0.99);
  for (int i = 0; i < 4; ++i) {
    std::string name = "h" + std::to_string(i) + "->r" + std::to_string(i);
    EXPECT_NEAR(test::find_flow(s, name)["throughput_bps"].get<double>(), 10e9, 0.5e9) << name;
  }
}

TEST(Topologies, ParkingLotShortchangesTheLongFlow) {
  nlohmann::json s = test::run_scenario("parking-lot.yaml");
  EXPECT_EQ(s["totals"]["drops"], 0);
  // Every inter-switch link is offered 80 Gb/s and stays busy...
  for (const char* l : {"sw0->sw1", "sw1->sw2", "sw2->sw3"}) EXPECT_GE(utilization(s, l), 0.99) << l;
  // ...but the long flow, merged anew at every hop, gets well under its 20 Gb/s max-min share,
  // and the cross flows further down the chain get more than those upstream.
  double long_flow = test::find_flow(s, "h0->r0")["throughput_bps"].get<double>();
  EXPECT_LT(long_flow, 0.75 * 20e9);
  double x0 = test::find_flow(s, "x0->y0")["throughput_bps"].get<double>();
  double x2 = test::find_flow(s, "x2->y2")["throughput_bps"].get<double>();
  EXPECT_GT(x2, x0);
}

TEST(Topologies, LeafSpineSpreadsFlowsOverTheSpinesByEcmp) {
  nlohmann::json s = test::run_scenario("leaf-spine.yaml");
  EXPECT_EQ(s["totals"]["drops"], 0);
  // 8 flows leave leaf 0 for leaf 1 over two equal-cost spines: both are used.
  for (const char* up : {"l0->s0", "l0->s1"}) EXPECT_GT(utilization(s, up), 0.1) << up;
  // Each host offers 2 x 10 Gb/s; no flow can exceed its 10 Gb/s source rate, and none starves.
  for (const auto& f : s["flows"]) {
    EXPECT_LE(f["throughput_bps"].get<double>(), 10e9 * 1.01) << f["name"];
    EXPECT_GT(f["throughput_bps"].get<double>(), 1e9) << f["name"];
  }
}

TEST(Topologies, FatTreePermutationCollidesUnderEcmp) {
  nlohmann::json s = test::run_scenario("fat-tree.yaml");
  EXPECT_EQ(s["totals"]["drops"], 0);
  // The permutation fits the fabric, but hashed flows share uplinks: some are held back by PFC
  // to a fraction of 40 Gb/s while others, alone on their path, run at line rate.
  int full = 0, held = 0;
  for (const auto& f : s["flows"]) {
    const double gbps = f["throughput_bps"].get<double>() / 1e9;
    EXPECT_GT(gbps, 40.0 / 16) << f["name"];  // never worse than every flow on one uplink
    full += gbps > 39;
    held += gbps < 30;
  }
  EXPECT_GT(full, 0);
  EXPECT_GT(held, 0);
}
