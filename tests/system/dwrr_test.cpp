// DWRR with weights 1:3 splits a saturated port 25% / 75%.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

TEST(Dwrr, WeightsOneToThreeSplitASaturatedPort) {
  auto sim = test::make_sim(test::two_senders(1, 2, R"(
params:
  "sw0.port2.prio1.weight": 1
  "sw0.port2.prio2.weight": 3
run: {until: 2ms}
)"));
  sim->run();
  nlohmann::json s = sim->summary();
  double a = test::find_flow(s, "h0->r0")["rx_bytes"].get<double>();
  double b = test::find_flow(s, "h1->r0")["rx_bytes"].get<double>();
  EXPECT_NEAR(a / (a + b), 0.25, 0.02);
  EXPECT_NEAR(b / (a + b), 0.75, 0.02);
  EXPECT_EQ(s["totals"]["drops"], 0);
}

TEST(Dwrr, StrictPriorityStarvesTheLowerQueue) {
  auto sim =
      test::make_sim(test::two_senders(1, 6, "params: {\"sw0.port2.prio6.sched\": strict}\nrun: {until: 1ms}\n"));
  sim->run();
  nlohmann::json s = sim->summary();
  double low = test::find_flow(s, "h0->r0")["rx_bytes"].get<double>();
  double high = test::find_flow(s, "h1->r0")["rx_bytes"].get<double>();
  EXPECT_GT(high / (low + high), 0.95);
}
