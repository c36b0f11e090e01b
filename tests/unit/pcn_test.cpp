// PCN's congestion point (NP-ECN), notification point and reaction point as pure state machines:
// scripted departures, arrivals and CNPs in; exact marks, verdicts, rates and weights out. Every
// expectation is worked out by hand from the rules in docs/models/pcn.md (arithmetic in the
// comments), not copied from a run.
#include <gtest/gtest.h>

#include "models/cc/pcn/pcn_cp.h"
#include "models/cc/pcn/pcn_np.h"
#include "models/cc/pcn/pcn_rp.h"

using namespace sluice;

TEST(PcnCp, NeverPausedMarksEveryFrameThatWaited) {
  np_ecn cp;
  EXPECT_FALSE(cp.on_dequeue(0, 1, false));  // alone in the queue: zero threshold not crossed
  EXPECT_TRUE(cp.on_dequeue(0, 3, true));    // waited behind another frame: CE
  EXPECT_TRUE(cp.on_dequeue(0, 2, true));
  EXPECT_EQ(cp.pn(), 0u);
}

TEST(PcnCp, FramesWaitingAtAResumeLeaveUnmarkedThenZeroThreshold) {
  np_ecn cp;
  // The class resumed at t = 100 with 3 frames queued: PN = 3, those 3 leave unmarked although
  // they all waited.
  EXPECT_FALSE(cp.on_dequeue(100, 3, true));  // PN 3 -> 2
  EXPECT_EQ(cp.pn(), 2u);
  EXPECT_FALSE(cp.on_dequeue(100, 4, true));   // PN 2 -> 1 (a frame arrived meanwhile: queue 4)
  EXPECT_FALSE(cp.on_dequeue(100, 3, true));   // PN 1 -> 0
  EXPECT_TRUE(cp.on_dequeue(100, 2, true));    // arrived after the resume and waited: CE
  EXPECT_FALSE(cp.on_dequeue(100, 1, false));  // did not wait: unmarked
  // Paused again, resumed at t = 300 with 2 frames: PN reloaded to 2.
  EXPECT_FALSE(cp.on_dequeue(300, 2, true));
  // Paused again before PN ran out; resumed at t = 500 with 5 waiting: PN = 5, not 1 + 5.
  EXPECT_FALSE(cp.on_dequeue(500, 5, true));
  EXPECT_EQ(cp.pn(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(cp.on_dequeue(500, 4 - i, true));
  EXPECT_TRUE(cp.on_dequeue(500, 1, true));
}

namespace {
constexpr uint64_t us = 1'000'000;  // ps
constexpr uint64_t T = 50 * us;     // the paper's period
}  // namespace

TEST(PcnNp, CongestedAtNinetyFivePercentAndRateIsBytesOverT) {
  pcn_np_flow np;
  pcn_cnp cnp;
  // Period 1 (from the first frame at 0): 20 frames of 1000 B, 19 marked. 19/20 = 0.95: congested.
  EXPECT_TRUE(np.on_data(1000, false, 0));  // the first frame starts the period
  for (int i = 1; i < 20; ++i) EXPECT_FALSE(np.on_data(1000, true, i * 2 * us));
  ASSERT_TRUE(np.on_period_end(T, 0.95, cnp));
  EXPECT_TRUE(cnp.congested);
  EXPECT_DOUBLE_EQ(cnp.rate_bps, 3.2e9);  // 20 x 1000 B x 8 / 50 us = 160 000 bit / 50 us = 3.2 Gb/s
  // Period 2: 20 frames, 18 marked: 0.9 < 0.95: not congested; the same 3.2 Gb/s.
  for (int i = 0; i < 20; ++i) np.on_data(1000, i >= 2, T + i * 2 * us);
  ASSERT_TRUE(np.on_period_end(T, 0.95, cnp));
  EXPECT_FALSE(cnp.congested);
  EXPECT_DOUBLE_EQ(cnp.rate_bps, 3.2e9);
  // Period 3: one frame, 25 us after the previous one (at 2T + 25 us; the last was at T + 38 us,
  // so 50 + 25 - 38 = 37 us): size over the inter-arrival time, 8000 bit / 37 us.
  np.on_data(1000, true, 2 * T + 25 * us);
  ASSERT_TRUE(np.on_period_end(T, 0.95, cnp));
  EXPECT_TRUE(cnp.congested);  // 1 of 1 marked
  EXPECT_DOUBLE_EQ(cnp.rate_bps, 8000.0 / 37e-6);
  // Period 4: nothing arrived: no CNP, the timer stops; the next frame starts a new period.
  EXPECT_FALSE(np.on_period_end(T, 0.95, cnp));
  EXPECT_FALSE(np.running());
  EXPECT_TRUE(np.on_data(500, false, 10 * T));
}

TEST(PcnNp, AFlowsOnlyFrameIsMeasuredOverThePeriod) {
  pcn_np_flow np;
  pcn_cnp cnp;
  np.on_data(1000, false, 7 * us);  // no previous frame: 8000 bit over T = 160 Mb/s
  ASSERT_TRUE(np.on_period_end(T, 0.95, cnp));
  EXPECT_FALSE(cnp.congested);
  EXPECT_DOUBLE_EQ(cnp.rate_bps, 160e6);
}

TEST(PcnNp, RateFieldIsOneMegabitUnitsRoundedAndSaturated) {
  EXPECT_EQ(pcn_rate_field(3.2e9), 3200u);
  EXPECT_EQ(pcn_rate_field(1.4999e6), 1u);
  EXPECT_EQ(pcn_rate_field(1.5e6), 2u);
  EXPECT_EQ(pcn_rate_field(0.49e6), 0u);
  EXPECT_EQ(pcn_rate_field(1e16), 0xFFFFFFFFu);  // 10^10 Mb/s does not fit 32 bits
}

namespace {
pcn_rp_config paper() { return pcn_rp_config{1.0 / 128, 0.5, 40e9, 0}; }
}  // namespace

TEST(PcnRp, MarkedCnpSetsTheReceivingRateLessWminAndNeverIncreases) {
  const pcn_rp_config c = paper();
  pcn_rp_state rp(40e9, c.w_min);  // start at line rate
  rp.on_cnp(c, true, 20e9);        // min(40G, 20G x 127/128 = 19.84375G)
  EXPECT_DOUBLE_EQ(rp.rate(), 19.84375e9);
  EXPECT_DOUBLE_EQ(rp.w(), 1.0 / 128);
  rp.on_cnp(c, true, 30e9);  // 30G x 127/128 = 29.765625G > 19.84375G: non-increasing, stays
  EXPECT_DOUBLE_EQ(rp.rate(), 19.84375e9);
}

TEST(PcnRp, UnmarkedCnpsIncreaseTowardsTheLineRateWithAGrowingWeight) {
  const pcn_rp_config c = paper();
  pcn_rp_state rp(40e9, c.w_min);
  rp.on_cnp(c, true, 20e9);  // 19.84375G
  // rate = 19.84375G x 127/128 + 40G / 128 = 19.688720703125G + 0.3125G = 20.001220703125G;
  // w = (1/128)(127/128) + (1/2)(1/128) = (127 + 64) / 16384 = 191/16384
  rp.on_cnp(c, false, 0);
  EXPECT_DOUBLE_EQ(rp.rate(), 20.001220703125e9);
  EXPECT_DOUBLE_EQ(rp.w(), 191.0 / 16384);
  // rate = 20.001220703125G x (16193/16384) + 40G x 191/16384 = 20234360769.39106;
  // w = (191/16384)(16193/16384) + (1/2)(191/16384) = 4657535 / 268435456
  rp.on_cnp(c, false, 0);
  EXPECT_NEAR(rp.rate(), 20234360769.39106, 1e-3);
  EXPECT_DOUBLE_EQ(rp.w(), 4657535.0 / 268435456);
  rp.on_cnp(c, true, 10e9);  // a marked CNP resets w to w_min
  EXPECT_DOUBLE_EQ(rp.rate(), 10e9 * 127 / 128);
  EXPECT_DOUBLE_EQ(rp.w(), 1.0 / 128);
}

TEST(PcnRp, RatesStayBetweenTheFloorAndTheLineRate) {
  pcn_rp_config c = paper();
  c.min_rate = 100e6;
  pcn_rp_state rp(40e9, c.w_min);
  rp.on_cnp(c, true, 0);  // a CNP reporting 0 Mb/s: the floor
  EXPECT_DOUBLE_EQ(rp.rate(), 100e6);
  pcn_rp_state top(40e9, 0.5);
  top.on_cnp(c, false, 0);  // 40G x 1/2 + 40G x 1/2 = 40G: never above the line rate
  EXPECT_DOUBLE_EQ(top.rate(), 40e9);
}

// The paper's Fig. 10 (section 5.3): from rate 0 with w_min = 1/128, w_max = 1/2 and only unmarked
// CNPs, r_k = 1 - prod_{j<k} (1 - w_j) of the line rate, w_{j+1} = w_j (3/2 - w_j):
//   w: 0.0078125, 0.011658, 0.017351, 0.025725, 0.037926, 0.055450, 0.080100, 0.113735, 0.157666,
//      0.211641, 0.272669, 0.334656, 0.389989, 0.432892, 0.461943
//   r_5 = 1 - 0.9921875 x 0.988342 x 0.982649 x 0.974275 x 0.962074 = 0.096788 (< 10 %)
//   r_15 = 0.958396 (> 95 %), r_14 = 0.922677 (< 95 %: 15 is the first).
TEST(PcnRp, RateIncreaseProfileIsGentleThenAggressive) {
  const pcn_rp_config c = paper();
  pcn_rp_state rp(0, c.w_min);
  const double line = c.line_rate;
  for (int k = 1; k <= 15; ++k) {
    rp.on_cnp(c, false, 0);
    if (k == 1) {
      EXPECT_DOUBLE_EQ(rp.rate(), line / 128);
    }
    if (k <= 5) {
      EXPECT_LT(rp.rate(), 0.10 * line) << k;
    }
    if (k == 5) {
      EXPECT_NEAR(rp.rate() / line, 0.096788, 1e-6);
    }
    if (k == 14) {
      EXPECT_LT(rp.rate(), 0.95 * line);
    }
  }
  EXPECT_GT(rp.rate(), 0.95 * line);
  EXPECT_NEAR(rp.rate() / line, 0.958396, 1e-6);
}
