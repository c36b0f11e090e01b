// TIMELY's notification point (the segment rule of its ACKs) and reaction point (the rate law)
// as pure state machines: scripted RTT samples and completion times in, exact branches and rates
// out. Every expectation is worked out by hand from the equations in docs/models/timely.md (the
// arithmetic is in the comments), not copied from a run.
#include <gtest/gtest.h>

#include "models/nic/policies/timely_np.h"
#include "models/nic/policies/timely_rp.h"

using namespace sluice;

namespace {
constexpr uint64_t us = 1'000'000;  // ps
// The paper's defaults (T_low 50 us, T_high 500 us, alpha 0.875, beta 0.8, delta 10 Mb/s,
// min RTT 20 us, HAI after 5, N = 5) on a 10 Gb/s line, floor 1 % of it = 100 Mb/s.
timely_rp_config paper() {
  timely_rp_config c;
  c.line_rate = 10e9;
  c.min_rate = 0.01 * c.line_rate;
  return c;
}
using branch = timely_rp_state::branch;
}  // namespace

TEST(TimelyNp, AnAckPerCompletedSegmentAndAtTheFlowsEnd) {
  EXPECT_FALSE(completes_segment(0, 1000, 16000, 0));      // [0, 1000): inside segment 0
  EXPECT_TRUE(completes_segment(15000, 1000, 16000, 0));   // ends at 16000: 16000/16000 = 1 > 15000/16000 = 0
  EXPECT_TRUE(completes_segment(15500, 1000, 16000, 0));   // crosses 16000 (ends at 16500)
  EXPECT_FALSE(completes_segment(16000, 1000, 16000, 0));  // [16000, 17000): inside segment 1
  EXPECT_TRUE(completes_segment(31000, 1000, 16000, 0));   // ends at 32000
  EXPECT_TRUE(completes_segment(2000, 500, 16000, 2500));  // the last frame of a 2500-byte flow
  EXPECT_FALSE(completes_segment(1000, 1000, 16000, 2500));
  EXPECT_TRUE(completes_segment(1000, 1000, 0, 0));  // segment 0: every frame
}

TEST(TimelyRp, BelowTlowAddsDeltaAndCompletionsWithinMinRttAreSkipped) {
  const timely_rp_config c = paper();
  timely_rp_state rp(5e9);
  // First sample, 30 us at t = 0: new_rtt_diff = 0 (no previous), rtt_diff = 0, gradient 0;
  // 30 < 50: rate = 5G + 10M.
  EXPECT_EQ(rp.on_rtt(30 * us, 0, c), branch::low);
  EXPECT_DOUBLE_EQ(rp.rate(), 5.01e9);
  EXPECT_EQ(rp.negatives(), 1u);  // gradient 0 counts as "<= 0"
  // 10 us later: within min_rtt (20 us) of the last update: skipped entirely.
  EXPECT_EQ(rp.on_rtt(40 * us, 10 * us, c), branch::none);
  EXPECT_DOUBLE_EQ(rp.rate(), 5.01e9);
  EXPECT_EQ(rp.samples(), 1u);
  // At 20 us: new_rtt_diff = 40 - 30 = 10 us; rtt_diff = 0.125 x 0 + 0.875 x 10 = 8.75 us;
  // gradient = 8.75 / 20 = 0.4375 > 0 (count reset); still 40 < 50: additive, rate 5.02G.
  EXPECT_EQ(rp.on_rtt(40 * us, 20 * us, c), branch::low);
  EXPECT_DOUBLE_EQ(rp.rtt_diff(), 8.75 * us);
  EXPECT_DOUBLE_EQ(rp.gradient(), 0.4375);
  EXPECT_EQ(rp.negatives(), 0u);
  EXPECT_DOUBLE_EQ(rp.rate(), 5.02e9);
}

TEST(TimelyRp, AboveThighCutsByBetaTimesTheExcessFraction) {
  const timely_rp_config c = paper();
  timely_rp_state rp(8e9);
  // 1000 us: rate = 8G x (1 - 0.8 x (1 - 500/1000)) = 8G x (1 - 0.4) = 4.8G.
  EXPECT_EQ(rp.on_rtt(1000 * us, 0, c), branch::high);
  EXPECT_DOUBLE_EQ(rp.rate(), 4.8e9);
  // 625 us, 20 us later: 4.8G x (1 - 0.8 x (1 - 500/625)) = 4.8G x (1 - 0.8 x 0.2) = 4.8G x 0.84.
  EXPECT_EQ(rp.on_rtt(625 * us, 20 * us, c), branch::high);
  EXPECT_DOUBLE_EQ(rp.rate(), 4.8e9 * 0.84);
}

TEST(TimelyRp, BetweenThresholdsTheGradientDecidesWithTheRttDifferenceAveraged) {
  const timely_rp_config c = paper();
  timely_rp_state rp(8e9);
  // 100 us first: gradient 0 <= 0, count 1 < 5: rate + delta = 8.01G.
  EXPECT_EQ(rp.on_rtt(100 * us, 0, c), branch::increase);
  EXPECT_DOUBLE_EQ(rp.rate(), 8.01e9);
  // 110 us: rtt_diff = 0.875 x 10 = 8.75 us, gradient 0.4375:
  // rate = 8.01G x (1 - 0.8 x 0.4375) = 8.01G x 0.65 = 5.2065G.
  EXPECT_EQ(rp.on_rtt(110 * us, 20 * us, c), branch::decrease);
  EXPECT_DOUBLE_EQ(rp.rate(), 5.2065e9);
  // 108 us: new diff -2 us; rtt_diff = 0.125 x 8.75 + 0.875 x (-2) = 1.09375 - 1.75 = -0.65625 us;
  // gradient -0.0328125 <= 0: rate + delta = 5.2165G.
  EXPECT_EQ(rp.on_rtt(108 * us, 40 * us, c), branch::increase);
  EXPECT_DOUBLE_EQ(rp.rtt_diff(), -0.65625 * us);
  EXPECT_DOUBLE_EQ(rp.rate(), 5.2165e9);
}

TEST(TimelyRp, HyperActiveIncreaseAfterFiveConsecutiveNonPositiveGradientsUntilOnePositive) {
  const timely_rp_config c = paper();
  timely_rp_state rp(5e9);
  // 100 us flat, one completion per 20 us: gradients all 0. Counts 1..4: + delta each
  // (5.01, 5.02, 5.03, 5.04G); count 5: HAI, + 5 delta = 5.09G; count 6: 5.14G.
  const double expected[] = {5.01e9, 5.02e9, 5.03e9, 5.04e9, 5.09e9, 5.14e9};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(rp.on_rtt(100 * us, static_cast<uint64_t>(i) * 20 * us, c), i < 4 ? branch::increase : branch::hai) << i;
    EXPECT_NEAR(rp.rate(), expected[i], 1e-3) << i;
  }
  // 110 us: rtt_diff 8.75 us, gradient 0.4375: rate = 5.14G x 0.65 = 3.341G; count reset.
  EXPECT_EQ(rp.on_rtt(110 * us, 120 * us, c), branch::decrease);
  EXPECT_NEAR(rp.rate(), 3.341e9, 1e-3);
  EXPECT_EQ(rp.negatives(), 0u);
  // 110 us again: new diff 0, rtt_diff = 0.125 x 8.75 = 1.09375 us, gradient 0.0546875 > 0:
  // rate = 3.341G x (1 - 0.8 x 0.0546875) = 3.341G x 0.95625 = 3.19483125G.
  EXPECT_EQ(rp.on_rtt(110 * us, 140 * us, c), branch::decrease);
  EXPECT_NEAR(rp.rate(), 3.19483125e9, 1e-3);
  // 100 us: new diff -10; rtt_diff = 0.125 x 1.09375 - 8.75 = -8.61328125 us <= 0, count 1: + delta only.
  EXPECT_EQ(rp.on_rtt(100 * us, 160 * us, c), branch::increase);
  EXPECT_NEAR(rp.rate(), 3.20483125e9, 1e-3);
}

TEST(TimelyRp, RateStaysBetweenTheFloorAndTheLineRate) {
  const timely_rp_config c = paper();
  timely_rp_state rp(10e9);
  EXPECT_EQ(rp.on_rtt(10 * us, 0, c), branch::low);
  EXPECT_DOUBLE_EQ(rp.rate(), 10e9);  // 10G + 10M capped at the 10 Gb/s line
  // 100 ms RTT: 10G x (1 - 0.8 x (1 - 0.5/100)) = 10G x (1 - 0.796) = 2.04G; again: 2.04G x
  // 0.204 = 0.41616G; again: 0.0849 G < 100 Mb/s: held at the floor.
  rp.on_rtt(100000 * us, 20 * us, c);
  EXPECT_NEAR(rp.rate(), 2.04e9, 1e-3);
  rp.on_rtt(100000 * us, 40 * us, c);
  EXPECT_NEAR(rp.rate(), 0.41616e9, 1e-3);
  rp.on_rtt(100000 * us, 60 * us, c);
  EXPECT_DOUBLE_EQ(rp.rate(), 0.1e9);
}
