// TCD's ternary detector, max(Ton) and code points, and the DCQCN hold used by dcqcn-tcd, as pure
// state machines: scripted departures (time, end of the latest OFF period, queue left behind) in;
// exact states, transitions, times and ON periods out. Expectations worked out by hand from the
// rules in docs/models/tcd.md (arithmetic in the comments), not copied from a run.
#include <gtest/gtest.h>

#include "models/cc/dcqcn/dcqcn_profiles.h"
#include "models/cc/dcqcn/dcqcn_rp.h"
#include "models/cc/tcd/tcd_cp.h"

using namespace sluice;

namespace {
constexpr uint64_t us = 1'000'000;                     // ps
const tcd_config cfg{100 * us, 100 * us, 5000, 2000};  // max(Ton) = T = 100 us, high 5 KB, low 2 KB
}  // namespace

TEST(TcdMaxTon, WorkedExampleOfTheReference) {
  // tau = 8 us, C = 40 Gb/s, B1 - B0 = 2 frames of 1 KB (2048 B), eps = 0.05:
  // (2 x 2048 x 8 + 8e-6 x 40e9) / (2 x 0.05 x 40e9) = (32768 + 320000) / 4e9 = 88.192 us; + 8 us = 96.192 us
  // (the authors' ns-3 uses 97 us).
  EXPECT_EQ(tcd_max_ton_ps(2048, 8 * us, 40e9, 0.05), 96'192'000u);
  // Default PFC loop of pcn-basic: gap 3000 B, tau = 2 x 5 us + 64 B at 40 Gb/s (12.8 ns) = 10.0128 us:
  // (48000 + 400512) / 4e9 = 112.128 us; + 10.0128 us = 122.1408 us
  EXPECT_EQ(tcd_max_ton_ps(3000, 10'012'800, 40e9, 0.05), 122'140'800u);
  // Eq. (1): gap 30 KB, tau 2.0128 us, Ri 40 Gb/s, Rd 10 Gb/s: (240000 + 20128) / 30e9 + 2.0128 us = 10.6837 us
  EXPECT_NEAR(tcd_on_period_s(30000, 2.0128e-6, 40e9, 10e9), 10.6837e-6, 1e-10);
}

TEST(TcdDetector, ContinuousOnPortFollowsTheQueueTrendAndThresholds) {
  tcd_detector d;
  EXPECT_EQ(d.on_dequeue(cfg, 10 * us, 0, 1000), tcd_state::non_congestion);  // never paused, queue <= low
  EXPECT_EQ(d.entries(tcd_state::non_congestion), 0u);                        // it started there
  // 100 us: a period since the last check (at 0), 8000 > high and >= 0 (level a period ago): congestion
  EXPECT_EQ(d.on_dequeue(cfg, 100 * us, 0, 8000), tcd_state::congestion);
  EXPECT_EQ(d.on_dequeue(cfg, 150 * us, 0, 6000), tcd_state::congestion);  // mid-period, above low: stays
  // 200 us: period check, 7000 > high but below 8000 (a period ago): no verdict, stays
  EXPECT_EQ(d.on_dequeue(cfg, 200 * us, 0, 7000), tcd_state::congestion);
  EXPECT_EQ(d.on_dequeue(cfg, 210 * us, 0, 1500), tcd_state::non_congestion);  // <= low: at once
  EXPECT_EQ(d.entries(tcd_state::congestion), 1u);
  EXPECT_EQ(d.entries(tcd_state::non_congestion), 1u);
  EXPECT_EQ(d.time_in_ps(tcd_state::congestion, 500 * us), 110 * us);      // 100 us to 210 us
  EXPECT_EQ(d.time_in_ps(tcd_state::non_congestion, 500 * us), 390 * us);  // 0-100 and 210-500
  EXPECT_EQ(d.on_periods(), 0u);
}

TEST(TcdDetector, PausedPortIsUndeterminedThenLeavesByTheQueueTrend) {
  tcd_detector d;
  // An OFF period ended at 300 us; departures 5 us later: Ton = 5 us < 100 us: undetermined,
  // whatever the queue (9000 B here).
  EXPECT_EQ(d.on_dequeue(cfg, 305 * us, 300 * us, 9000), tcd_state::undetermined);
  // Another OFF period ended at 320 us: the ON period 300 -> 305 us (its last departure) is complete.
  EXPECT_EQ(d.on_dequeue(cfg, 321 * us, 320 * us, 9500), tcd_state::undetermined);
  EXPECT_EQ(d.on_periods(), 1u);
  EXPECT_EQ(d.on_sum_ps(), 5 * us);
  EXPECT_EQ(d.on_dequeue(cfg, 400 * us, 320 * us, 9000), tcd_state::undetermined);  // Ton 80 us
  // 421 us: Ton = 101 us >= max(Ton): continuous ON again. Period check (last at 305 us with
  // 9000 B): 4000 < 9000, the queue drains: no verdict yet, stays undetermined.
  EXPECT_EQ(d.on_dequeue(cfg, 421 * us, 320 * us, 4000), tcd_state::undetermined);
  EXPECT_EQ(d.on_dequeue(cfg, 430 * us, 320 * us, 2000), tcd_state::non_congestion);  // <= low
  EXPECT_EQ(d.entries(tcd_state::congestion), 0u);                       // a victim never became congestion
  EXPECT_EQ(d.time_in_ps(tcd_state::undetermined, 430 * us), 125 * us);  // 305 -> 430 us
}

TEST(TcdDetector, QueueThatKeepsItsLevelAfterTheOffPeriodsIsCongestion) {
  tcd_detector d;
  EXPECT_EQ(d.on_dequeue(cfg, 305 * us, 300 * us, 9000), tcd_state::undetermined);  // check at 305: 9000
  // 406 us: Ton = 106 us, a period since 305 us, 9000 >= 9000 and > high: congestion
  EXPECT_EQ(d.on_dequeue(cfg, 406 * us, 300 * us, 9000), tcd_state::congestion);
  // Paused again (OFF ended at 500 us): undetermined at once
  EXPECT_EQ(d.on_dequeue(cfg, 501 * us, 500 * us, 9000), tcd_state::undetermined);
  EXPECT_EQ(d.entries(tcd_state::undetermined), 2u);
  EXPECT_EQ(d.on_periods(), 1u);  // 300 -> 406 us
  EXPECT_EQ(d.on_max_ps(), 106 * us);
}

TEST(TcdMarking, UeOnlyWhenNotAlreadyCe) {
  uint8_t ecn = 0;
  tcd_mark(ecn, tcd_state::non_congestion);
  EXPECT_EQ(ecn, 0);
  tcd_mark(ecn, tcd_state::undetermined);
  EXPECT_EQ(ecn, ecn_ue);  // 10
  tcd_mark(ecn, tcd_state::congestion);
  EXPECT_EQ(ecn, ecn_ce);  // 11: a congestion port after an undetermined one
  tcd_mark(ecn, tcd_state::undetermined);
  EXPECT_EQ(ecn, ecn_ce);  // an undetermined port after a congestion one leaves CE
}

// On an IB frame: CE is FECN and clears a UE set upstream; UE (the reserved BTH bit) never over FECN.
TEST(TcdMarking, BthUeOnlyWhenNotAlreadyFecn) {
  uint8_t f = frame_flags::becn;  // other flags are kept
  tcd_mark_bth(f, tcd_state::non_congestion);
  EXPECT_EQ(f, frame_flags::becn);
  tcd_mark_bth(f, tcd_state::undetermined);
  EXPECT_EQ(f, frame_flags::becn | frame_flags::tcd_ue);
  tcd_mark_bth(f, tcd_state::congestion);
  EXPECT_EQ(f, frame_flags::becn | frame_flags::fecn);
  tcd_mark_bth(f, tcd_state::undetermined);
  EXPECT_EQ(f, frame_flags::becn | frame_flags::fecn);
}

// The credit loop's max(Ton) (credit_flow_control::on_off) with credit.batch 0: gap one 64-byte block, tau =
// min_interval 4.096 us + 2 x 1 us + a 6-byte credit packet at 40 Gb/s (1.2 ns) = 6.0972 us:
// (2 x 64 x 8 + 6.0972e-6 x 40e9) / (2 x 0.05 x 40e9) = (1024 + 243888) / 4e9 = 61.228 us; + 6.0972 = 67.3252 us.
TEST(TcdMaxTon, CreditLoopOfAnInfiniBandPort) {
  EXPECT_EQ(tcd_max_ton_ps(64, 6'097'200, 40e9, 0.05), 67'325'200u);
  // With the default batch of 8 KiB the gap is 8192 B: (2 x 8192 x 8 + 243888) / 4e9 = 93.74 us;
  // + 6.0972 = 99.8372 us.
  EXPECT_EQ(tcd_max_ton_ps(8192, 6'097'200, 40e9, 0.05), 99'837'200u);
  // The credit ON period (tcd_credit_on_period_s): Rd 10 Gb/s returns 10e9 x 4.096 us = 5120 B per
  // update, 5120 / 1026 = 4.990 frames of 1026 B; ON = (4.990 - 1) x 205.2 ns = 818.8 ns.
  EXPECT_NEAR(tcd_credit_on_period_s(4.096e-6, 10e9, 40e9, 1026), 818.8e-9, 1e-12);
}

TEST(DcqcnTcdRp, HoldKeepsTheRateAndRestartsTheRecoveryFromIt) {
  const dcqcn_rp_config c = dcqcn_paper.rp_config(40e9);  // rules and parameters of the paper
  dcqcn_rp_state rp(40e9, 1.0);
  rp.on_cnp(c);         // rt 40G, rc 20G, alpha 1
  rp.on_rate_timer(c);  // fast recovery: rc = (40 + 20) / 2 = 30G
  EXPECT_DOUBLE_EQ(rp.rc(), 30e9);
  rp.on_hold();  // UE: rt <- rc = 30G, stages reset; no cut, alpha unchanged
  EXPECT_DOUBLE_EQ(rp.rc(), 30e9);
  EXPECT_DOUBLE_EQ(rp.rt(), 30e9);
  EXPECT_DOUBLE_EQ(rp.alpha(), 1.0);
  EXPECT_EQ(rp.timer_stage(), 0u);
  rp.on_rate_timer(c);  // fast recovery towards rt = rc: (30 + 30) / 2 = 30G, the rate holds
  EXPECT_DOUBLE_EQ(rp.rc(), 30e9);
}
