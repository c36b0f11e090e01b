// QCN (IEEE 802.1Qau) congestion and reaction points as pure state machines, against
// hand-computed values (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include "models/cc/congestion_point.h"
#include "models/cc/qcn/qcn_cp_state.h"
#include "models/cc/qcn/qcn_rp_state.h"
#include "models/protocol/cnm_frame.h"
#include "models/protocol/ethernet.h"
#include "tests/support/switch_bench.h"

using namespace sluice;

namespace {
// The declared defaults (qcn_cp.cpp), written out: Qeq 26 KB = 26 624 B, w = 2 (Fbmax =
// (1 + 2*2) * 26 624 = 133 120 B), a 150 KB sample base, the standard's rules (the pseudo-code's
// sampling table, qFb truncated), BA below 9 000 B for 10 ms; path_ba and sonar off.
qcn_cp_config cp_config(double jitter = 0.0) {
  return {26 * 1024, 2.0, 150000, jitter, false, false, false, 9000, 10'000'000'000ull, false};
}
// Sluice's earlier rules, kept as options: the linear sampling table, qFb rounded up.
qcn_cp_config linear_up_config() {
  qcn_cp_config c = cp_config();
  c.linear_table = true;
  c.round_up = true;
  return c;
}
}  // namespace

TEST(QcnCp, FeedbackFromOffsetAndGrowth) {
  const qcn_cp_config c = cp_config();
  // Q 40 000, Qold 30 000: Qoff = 13 376, Qdelta = 10 000, Fb = -(13 376 + 2*10 000) = -33 376.
  EXPECT_EQ(qcn_cp_state::feedback(40000, 30000, c), -33376);
  // Q 20 000, Qold 30 000: Qoff = -6 624, Qdelta = -10 000, Fb = -(-6 624 - 20 000) = 26 624.
  EXPECT_EQ(qcn_cp_state::feedback(20000, 30000, c), 26624);
  // At Qeq and not moving: Fb = 0 (no congestion signalled).
  EXPECT_EQ(qcn_cp_state::feedback(26624, 26624, c), 0);
}

TEST(QcnCp, SixBitQuantizationOfFbOverFbmaxTruncatesOrRoundsUp) {
  const qcn_cp_config c = cp_config();
  // |Fb| 33 376: 33 376 * 63 / 133 120 = 15.795..., truncated: 15 (the OMNeT++ port's integer
  // quantizer); rounded up (fb_rounding = up): 16.
  EXPECT_EQ(qcn_cp_state::quantize(-33376, c), 15);
  EXPECT_EQ(qcn_cp_state::quantize(-33376, linear_up_config()), 16);
  // |Fb| = 1: 63 / 133 120 = 0.0005: truncated 0 (no CNM below Fbmax/63 = 2 113 B); rounded up 1.
  EXPECT_EQ(qcn_cp_state::quantize(-1, c), 0);
  EXPECT_EQ(qcn_cp_state::quantize(-2113, c), 0);
  EXPECT_EQ(qcn_cp_state::quantize(-2114, c), 1);
  EXPECT_EQ(qcn_cp_state::quantize(-1, linear_up_config()), 1);
  // |Fb| = Fbmax: 63; beyond it saturates at 63.
  EXPECT_EQ(qcn_cp_state::quantize(-133120, c), 63);
  EXPECT_EQ(qcn_cp_state::quantize(-573376, c), 63);
  EXPECT_EQ(qcn_cp_state::quantize(-573376, linear_up_config()), 63);
  // Fb >= 0: no feedback.
  EXPECT_EQ(qcn_cp_state::quantize(0, c), 0);
  EXPECT_EQ(qcn_cp_state::quantize(26624, c), 0);
  EXPECT_EQ(qcn_cp_state::quantize(0, linear_up_config()), 0);
}

TEST(QcnCp, SamplingIntervalShrinksByFeedbackBand) {
  // Band k = qFb >> 3. Standard: the pseudo-code's table, 150, 75, 50, 37.5, 30, 25, 21.5,
  // 18.5 KB at a 150 KB base (about 150/(1 + k)).
  const qcn_cp_config c = cp_config();
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 0), 150000u);
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 7), 150000u);  // still band 0
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 8), 75000u);
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 16), 50000u);
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 24), 37500u);
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 45), 25000u);
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 48), 21500u);
  EXPECT_EQ(qcn_cp_state::nominal_interval(c, 63), 18500u);
  // Linear (sample_table = linear): 150 000 / (1 + 9k/7).
  const qcn_cp_config l = linear_up_config();
  EXPECT_EQ(qcn_cp_state::nominal_interval(l, 0), 150000u);  // k 0: 1 % of 1500-B frames
  EXPECT_EQ(qcn_cp_state::nominal_interval(l, 8), 65625u);   // k 1: 150 000 * 7/16
  EXPECT_EQ(qcn_cp_state::nominal_interval(l, 16), 42000u);  // k 2: 150 000 * 7/25
  EXPECT_EQ(qcn_cp_state::nominal_interval(l, 45), 20192u);  // k 5: 150 000 * 7/52 = 20 192.3
  EXPECT_EQ(qcn_cp_state::nominal_interval(l, 63), 15000u);  // k 7: 150 000 / 10
}

TEST(QcnCp, SamplesEveryIntervalAndComputesFbAgainstTheLastSample) {
  const qcn_cp_config c = cp_config();  // no jitter
  qcn_cp_state cp(1);
  // 150 000 B base: 99 frames of 1500 B leave 1 500 to go; the 100th is sampled.
  for (int i = 0; i < 99; ++i) EXPECT_FALSE(cp.on_arrival(1500, 40000, c).sampled);
  qcn_sample s = cp.on_arrival(1500, 40000, c);
  ASSERT_TRUE(s.sampled);
  // Qold starts at 0: Qoff = 13 376, Qdelta = 40 000, Fb = -(13 376 + 80 000) = -93 376;
  // 93 376 * 63 / 133 120 = 44.19 -> 44.
  EXPECT_EQ(s.fb, -93376);
  EXPECT_EQ(s.q_offset, 13376);
  EXPECT_EQ(s.q_delta, 40000);
  EXPECT_EQ(s.qfb, 44);
  // Next interval: band 5, 25 000 B: 16 frames leave 1 000, the 17th is sampled.
  EXPECT_EQ(cp.bytes_to_next_sample(), 25000u);
  for (int i = 0; i < 16; ++i) EXPECT_FALSE(cp.on_arrival(1500, 30000, c).sampled);
  s = cp.on_arrival(1500, 30000, c);
  ASSERT_TRUE(s.sampled);
  // Q 30 000 against Qold 40 000: Fb = -(3 376 - 20 000) = 16 624 > 0: no CNM; back to 150 000.
  EXPECT_EQ(s.fb, 16624);
  EXPECT_EQ(s.qfb, 0);
  EXPECT_EQ(cp.bytes_to_next_sample(), 150000u);
}

TEST(QcnCp, JitteredIntervalsStayWithinFifteenPercentAndAverageTheNominal) {
  const qcn_cp_config c = cp_config(0.15);
  qcn_cp_state cp(42);
  double sum = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    while (!cp.on_arrival(1000, 0, c).sampled) {
    }
    const uint64_t next = cp.bytes_to_next_sample();  // Q = 0 < Qeq: Fb > 0, band 0
    EXPECT_GE(next, 127500u);                         // 150 000 * 0.85
    EXPECT_LT(next, 172500u);                         // 150 000 * 1.15
    sum += static_cast<double>(next);
  }
  EXPECT_NEAR(sum / n, 150000.0, 2000.0);  // uniform: sd of the mean 150 000*0.15/sqrt(3*2000) = 290
}

namespace {
constexpr double line = 10e9;
// The declared defaults (qcn_rp.cpp), written out: the tutorial table (Gd 0.5, min rate 10 Mb/s,
// BC 150 KB, T 15 ms, F 5, R_AI 5 Mb/s, R_HAI 50 Mb/s), extra fast recovery and target-rate
// reduction on, path_ba off (BA timer 5 ms), sonar off (WP 5 ms, WE 1 ms, SF 1 ms), recovery
// periods jittered by +/- 15 %, TR held by the byte stage, the byte counter reset with TR only.
qcn_rp_config declared_rp_config() {
  constexpr uint64_t ms = 1'000'000'000;  // ps
  return {0.5,   10e6,   150000, 15 * ms, 5,      5e6,    50e6, true,  true,
          false, 5 * ms, false,  5 * ms,  1 * ms, 1 * ms, 0.15, false, false};
}
// The defaults with exact recovery periods, so that each step can be worked out by hand.
qcn_rp_config rp_config() {
  qcn_rp_config c = declared_rp_config();
  c.recovery_jitter = 0;
  return c;
}
// Sends `bytes` in 1500-B frames; returns the byte-counter cycles that ended.
int send(qcn_rp_state& rp, uint64_t bytes, const qcn_rp_config& c) {
  int cycles = 0;
  for (uint64_t b = 0; b < bytes; b += 1500) cycles += rp.on_sent(1500, c);
  return cycles;
}
}  // namespace

TEST(QcnRp, CnmCutsTheRateByTheQuantizedFeedback) {
  const qcn_rp_config c = rp_config();
  qcn_rp_state rp(line);
  EXPECT_FALSE(rp.limited());
  // qFb 63: CR = 10 G * (1 - 0.5 * 63/63) = 5 G; TR = the rate before, 10 G.
  rp.on_cnm(63, 0, c);
  EXPECT_TRUE(rp.limited());
  EXPECT_DOUBLE_EQ(rp.current_rate(), 5e9);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  // One byte-counter cycle (FR), then qFb 21: TR = CR = 7.5 G; CR = 7.5 G * (1 - 0.5 * 21/63) = 6.25 G.
  EXPECT_EQ(send(rp, 150000, c), 1);
  rp.on_cnm(21, 0, c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 7.5e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 6.25e9);
}

TEST(QcnRp, ExtraFastRecoveryAccumulatesCutsWithinTheFirstCycle) {
  qcn_rp_config c = rp_config();
  qcn_rp_state rp(line);
  // Two CNMs of qFb 63 with no cycle between: TR stays 10 G, CR = 10 G / 2 / 2 = 2.5 G.
  rp.on_cnm(63, 0, c);
  rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 2.5e9);
  // Without it, the second CNM resets TR to CR: TR 5 G, CR 2.5 G.
  c.extra_fast_recovery = false;
  qcn_rp_state plain(line);
  plain.on_cnm(63, 0, c);
  plain.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(plain.target_rate(), 5e9);
  EXPECT_DOUBLE_EQ(plain.current_rate(), 2.5e9);
}

TEST(QcnRp, FastRecoveryHalvesTheGapOverFiveByteCounterCyclesThenActiveIncrease) {
  const qcn_rp_config c = rp_config();
  qcn_rp_state rp(line);
  rp.on_cnm(63, 0, c);  // CR 5 G, TR 10 G
  // Each 150 KB cycle: CR = (CR + TR)/2: 7.5, 8.75, 9.375, 9.6875, 9.84375 G; TR unchanged.
  const double expected[] = {7.5e9, 8.75e9, 9.375e9, 9.6875e9, 9.84375e9};
  for (double cr : expected) {
    EXPECT_EQ(send(rp, 150000, c), 1);
    EXPECT_DOUBLE_EQ(rp.current_rate(), cr);
    EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  }
  EXPECT_EQ(rp.byte_stage(), 5);
  // Active increase: cycles of BC/2 = 75 KB; TR = 10 G + 5 M = 10.005 G; CR = (9.84375 + 10.005)/2 G.
  EXPECT_EQ(send(rp, 75000, c), 1);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10.005e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), (9.84375e9 + 10.005e9) / 2);  // 9.924375 G
  // Two more: TR 10.010 G, CR 9.9671875 G; TR 10.015 G, CR 9.99109375 G; the next reaches
  // (9.99109375 + 10.020)/2 > 10 G: the limiter is released at line rate.
  send(rp, 75000, c);
  send(rp, 75000, c);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 9.99109375e9);
  EXPECT_TRUE(rp.limited());
  send(rp, 75000, c);
  EXPECT_FALSE(rp.limited());
  EXPECT_DOUBLE_EQ(rp.current_rate(), line);
  EXPECT_EQ(rp.timer_due_ps(), 0u);
}

TEST(QcnRp, TimerCyclesThenHyperActiveIncreaseWhenBothCountersPassFive) {
  const qcn_rp_config c = rp_config();
  const uint64_t t = c.timer_ps;  // 15 ms
  qcn_rp_state rp(line);
  // CNM, one byte cycle, CNM (not in FR1): TR = 7.5 G, CR = 3.75 G, far below line rate.
  rp.on_cnm(63, 0, c);
  send(rp, 150000, c);
  rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 7.5e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 3.75e9);
  EXPECT_EQ(rp.timer_due_ps(), t);
  EXPECT_FALSE(rp.on_timer(t - 1, c));  // not due yet
  // Five timer cycles of 15 ms (FR): CR 5.625, 6.5625, 7.03125, 7.265625, 7.3828125 G.
  uint64_t now = 0;
  for (int i = 0; i < 5; ++i) {
    now = rp.timer_due_ps();
    EXPECT_TRUE(rp.on_timer(now, c));
  }
  EXPECT_DOUBLE_EQ(rp.current_rate(), 7.3828125e9);
  EXPECT_EQ(rp.timer_due_ps(), now + t / 2);  // past F: T/2
  // Timer cycle 6: active increase, TR 7.505 G, CR (7.3828125 + 7.505)/2 G.
  rp.on_timer(rp.timer_due_ps(), c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 7.505e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), (7.3828125e9 + 7.505e9) / 2);
  // Byte cycles 1..5 with the timer past F: active increase, TR + 5 M each.
  for (int i = 0; i < 5; ++i) {
    const double tr = rp.target_rate(), cr = rp.current_rate();
    EXPECT_EQ(send(rp, 150000, c), 1);
    EXPECT_DOUBLE_EQ(rp.target_rate(), tr + 5e6);
    EXPECT_DOUBLE_EQ(rp.current_rate(), (cr + tr + 5e6) / 2);
  }
  // Byte cycle 6: both past F, i = min(6, 6) - 5 = 1: TR + 50 M.
  double tr = rp.target_rate();
  EXPECT_EQ(send(rp, 75000, c), 1);
  EXPECT_DOUBLE_EQ(rp.target_rate(), tr + 50e6);
  // Byte cycle 7 and timer cycle 7: i = min(7, 6) - 5 = 1, then min(7, 7) - 5 = 2: + 50 M, + 100 M.
  tr = rp.target_rate();
  send(rp, 75000, c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), tr + 50e6);
  tr = rp.target_rate();
  rp.on_timer(rp.timer_due_ps(), c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), tr + 100e6);
  EXPECT_TRUE(rp.limited());
}

TEST(QcnRp, RateNeverFallsBelowTheMinimum) {
  const qcn_rp_config c = rp_config();  // 10 Mb/s
  qcn_rp_state rp(line);
  // Nine CNMs of qFb 63 halve CR nine times: 10 G / 512 = 19.53 M > 10 M.
  for (int i = 0; i < 9; ++i) rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 10e9 / 512);
  // The tenth would give 9.77 M: floored at 10 M; and it stays there.
  rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 10e6);
  rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 10e6);
}

// ---- The pseudo-code's rules as both public ports run them (docs/models/qcn.md, "Fidelity").

TEST(QcnRp, TrIsHeldWhileTheByteCounterHasEndedNoCycleEvenAfterATimerCycle) {
  qcn_rp_config c = rp_config();
  qcn_rp_state rp(line);
  rp.on_cnm(63, 0, c);  // CR 5 G, TR 10 G
  // A timer cycle (timer stage 1, byte stage 0): FR, CR = 7.5 G.
  EXPECT_TRUE(rp.on_timer(rp.timer_due_ps(), c));
  EXPECT_DOUBLE_EQ(rp.current_rate(), 7.5e9);
  // A CNM now: the byte counter has ended no cycle, so TR stays 10 G (tr_hold = byte-stage);
  // CR = 3.75 G.
  rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 3.75e9);
  // tr_hold = both-stages: the timer cycle ended FR1, so the CNM sets TR = CR = 7.5 G first.
  c.tr_hold_both_stages = true;
  qcn_rp_state both(line);
  both.on_cnm(63, 0, c);
  both.on_timer(both.timer_due_ps(), c);
  both.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(both.target_rate(), 7.5e9);
  EXPECT_DOUBLE_EQ(both.current_rate(), 3.75e9);
}

TEST(QcnRp, TheByteCounterRestartsOnlyOnACnmThatSetsTheTarget) {
  qcn_rp_config c = rp_config();
  qcn_rp_state rp(line);
  rp.on_cnm(63, 0, c);
  EXPECT_EQ(rp.bytes_left(), 150000u);
  EXPECT_EQ(send(rp, 100500, c), 0);  // 67 frames: 49 500 B to go
  EXPECT_EQ(rp.bytes_left(), 49500u);
  // A CNM that holds TR (no byte cycle yet) leaves the count running: 49 500 to go.
  rp.on_cnm(63, 0, c);
  EXPECT_EQ(rp.bytes_left(), 49500u);
  // After a byte cycle, a CNM sets TR <- CR and restarts the count: 150 000.
  EXPECT_EQ(send(rp, 49500, c), 1);
  send(rp, 30000, c);
  rp.on_cnm(63, 0, c);
  EXPECT_EQ(rp.bytes_left(), 150000u);
  // bc_reset_every_cnm: the holding CNM restarts it too.
  c.bc_reset_every_cnm = true;
  qcn_rp_state every(line);
  every.on_cnm(63, 0, c);
  send(every, 100500, c);
  every.on_cnm(63, 0, c);
  EXPECT_EQ(every.bytes_left(), 150000u);
}

TEST(QcnRp, TargetReductionAtAnyCycleEndWithAStageCounterAtOne) {
  // The ports test "byte stage == 1 or timer stage == 1": the timer's first cycle reduces too,
  // after byte cycles. CNM x4 (CR 0.625 G, TR 10 G), then the timer's first cycle (byte stage
  // 0): TR 10 > 6.25: TR = 1.25 G, CR = 0.9375 G.
  const qcn_rp_config c = rp_config();
  qcn_rp_state rp(line);
  for (int i = 0; i < 4; ++i) rp.on_cnm(63, 0, c);
  EXPECT_TRUE(rp.on_timer(rp.timer_due_ps(), c));
  EXPECT_DOUBLE_EQ(rp.target_rate(), 1.25e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 0.9375e9);
  // The reduction replaces the cycle's increase: past F on the other counter it adds no R_AI.
}

namespace {
// Flows cut together (four qFb-63 CNMs at t = 0 each: CR 0.625 G, TR 10 G), each then sending
// at its CR: byte-counter cycles when its bytes are sent, timer cycles when due. Returns the
// time (ps) the flow is back at line rate (released).
uint64_t recovery_ps(qcn_rp_state& rp, const qcn_rp_config& c) {
  for (int i = 0; i < 4; ++i) rp.on_cnm(63, 0, c);
  double now = 0;  // ps
  while (rp.limited()) {
    const double byte_end = now + static_cast<double>(rp.bytes_left()) * 8 / rp.current_rate() * 1e12;
    const double timer = static_cast<double>(rp.timer_due_ps());
    if (byte_end < timer) {
      now = byte_end;
      rp.on_sent(rp.bytes_left(), c);
    } else {
      // The bytes sent until the timer at the old rate count too.
      const uint64_t sent = static_cast<uint64_t>((timer - now) * 1e-12 * rp.current_rate() / 8);
      if (sent) rp.on_sent(sent, c);
      now = timer;
      rp.on_timer(rp.timer_due_ps(), c);
    }
  }
  return static_cast<uint64_t>(now);
}
}  // namespace

TEST(QcnRp, FlowsCutTogetherRecoverAtDifferentTimesWithJitterAndTogetherWithout) {
  // Three flows with their own streams (derive_seed(1, "<nic>.qcn.flow<id>"), as the policy
  // seeds them). A 1 ms timer, so that both counters drive the recovery.
  qcn_rp_config c = rp_config();
  c.timer_ps = 1'000'000'000;
  c.recovery_jitter = 0.15;
  uint64_t with[3], without[3];
  for (int f = 0; f < 3; ++f) {
    const uint64_t seed = derive_seed(1, "h" + std::to_string(f) + ".qcn.flow" + std::to_string(f));
    qcn_rp_state a(line, seed);
    with[f] = recovery_ps(a, c);
    qcn_rp_config exact = c;
    exact.recovery_jitter = 0;
    qcn_rp_state b(line, seed);
    without[f] = recovery_ps(b, exact);
  }
  EXPECT_EQ(without[0], without[1]);
  EXPECT_EQ(without[1], without[2]);
  EXPECT_NE(with[0], with[1]);
  EXPECT_NE(with[1], with[2]);
  EXPECT_NE(with[0], with[2]);
  // Every period is within +/- 15 % of its nominal, so each recovery is within 15 % of the
  // exact one (the first cycle of each counter starts at the cut, exactly).
  for (int f = 0; f < 3; ++f) {
    EXPECT_GT(static_cast<double>(with[f]), 0.85 * static_cast<double>(without[f])) << f;
    EXPECT_LT(static_cast<double>(with[f]), 1.15 * static_cast<double>(without[f])) << f;
  }
  // The same seed draws the same periods: runs stay deterministic.
  qcn_rp_state again(line, derive_seed(1, "h0.qcn.flow0"));
  EXPECT_EQ(recovery_ps(again, c), with[0]);
}

TEST(QcnRp, JitteredPeriodsFollowACycleEndButACnmRestartsTheTimerExactly) {
  qcn_rp_config c = rp_config();
  c.recovery_jitter = 0.15;
  qcn_rp_state rp(line, 7);
  rp.on_cnm(63, 0, c);
  EXPECT_EQ(rp.timer_due_ps(), c.timer_ps);  // 15 ms exactly: both ports restart it unjittered
  EXPECT_EQ(rp.bytes_left(), 150000u);
  double sum = 0;
  for (int i = 0; i < 4; ++i) {  // FR cycles: BC x (1 +/- 0.15)
    EXPECT_TRUE(rp.on_sent(rp.bytes_left(), c));
    const uint64_t left = rp.bytes_left();
    sum += static_cast<double>(left);
    EXPECT_GE(left, 127500u);
    EXPECT_LT(left, 172500u);
  }
  EXPECT_NE(sum, 4 * 150000.0);
  const uint64_t before = rp.timer_due_ps();
  EXPECT_TRUE(rp.on_timer(before, c));
  const uint64_t period = rp.timer_due_ps() - before;
  EXPECT_GE(period, 12'750'000'000ull);
  EXPECT_LT(period, 17'250'000'000ull);
}

using test::cp_owner;
using test::recording_injector;

TEST(QcnCp, ChosenByNameSendsARealCnmToTheSampledFramesSource) {
  cp_owner port("qcn_port");
  recording_injector injector;
  auto cp = cp_policies::instance().make("qcn_port.prio3.cp", "qcn", port, 3, injector);
  ASSERT_TRUE(cp);
  packet_header data = test::sampled_data_frame();
  const queue_view q = test::sampled_queue();
  const uint64_t port_mac = q.port_mac;
  // The first sample comes after 127.5-172.5 KB (150 KB +/- 15 %): at most 115 frames of 1500 B.
  for (int i = 0; i < 115 && injector.frames.empty(); ++i) cp->on_enqueue(data, q);
  ASSERT_EQ(injector.frames.size(), 1u);
  tlm::tlm_generic_payload* p = injector.frames[0];
  const packet_header& h = header(*p);
  EXPECT_EQ(h.kind, frame_kind::cnm);
  EXPECT_EQ(h.src, 7u);  // the switch
  EXPECT_EQ(h.dst, 3u);  // the sampled frame's source
  EXPECT_EQ(h.flow_id, 11u);
  EXPECT_EQ(h.priority, 3);
  ASSERT_NE(h.image, nullptr);
  EXPECT_EQ(h.size, 18u + 24 + 64 + 4);  // header and tag, PDU, 64 B of the MSDU, FCS: 110 B
  EXPECT_EQ(wire::get48(h.image->data(), 0), eth::mac_address(3, 0));  // DA: the source NIC
  EXPECT_EQ(wire::get48(h.image->data(), 6), port_mac);                // SA: the CP's port
  cnm_pdu pdu;
  ASSERT_TRUE(decode_cnm(*h.image, pdu));  // 802.1Q tag, EtherType 0x22E7
  // Q 60 000 against Qold 0: Qoff = 60 000 - 26 624 = 33 376, Qdelta = 60 000,
  // Fb = -(33 376 + 120 000) = -153 376 beyond Fbmax = 133 120: qFb 63.
  EXPECT_EQ(pdu.quantized_feedback, 63);
  EXPECT_EQ(pdu.cpid, port_mac << 16 | 3);  // egress port MAC + priority
  EXPECT_EQ(pdu.q_offset, 33376 / 64);      // units of 64 B: 521
  EXPECT_EQ(pdu.q_delta, 60000 / 64);       // 937
  EXPECT_EQ(pdu.encapsulated_priority, 3);
  EXPECT_EQ(pdu.encapsulated_da, eth::mac_address(5, 0));
  EXPECT_EQ(pdu.msdu_length, 1500 - 22);  // wire size less DA, SA, tag, EtherType and FCS
  EXPECT_EQ(pdu.msdu_bytes, 64);
  p->release();
}

// ---- Target-rate reduction (in both ports of the pseudo-code, on by default) and the seed's
// transient-response improvements (qcn-transient-response), off by default.

TEST(QcnRp, TargetReductionAtTheEndOfFr1WhenTrExceedsTenTimesCr) {
  qcn_rp_config c = rp_config();  // target_reduction on: both ports of the pseudo-code apply it
  qcn_rp_state rp(line);
  // Four qFb-63 CNMs within FR1 (extra fast recovery keeps TR = 10 G): CR = 10/2/2/2/2 = 0.625 G.
  for (int i = 0; i < 4; ++i) rp.on_cnm(63, 0, c);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 0.625e9);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  // End of FR1 (first byte-counter cycle): TR 10 G > 10 x 0.625 G = 6.25 G, so TR = 10/8 = 1.25 G,
  // CR = (0.625 + 1.25)/2 = 0.9375 G.
  EXPECT_EQ(send(rp, 150000, c), 1);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 1.25e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 0.9375e9);
  // FR2 is not the end of FR1: no further reduction, CR = (0.9375 + 1.25)/2 = 1.09375 G.
  EXPECT_EQ(send(rp, 150000, c), 1);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 1.25e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 1.09375e9);

  // Off: the same FR1 end gives CR = (0.625 + 10)/2 = 5.3125 G.
  qcn_rp_config off = rp_config();
  off.target_reduction = false;
  qcn_rp_state plain(line);
  for (int i = 0; i < 4; ++i) plain.on_cnm(63, 0, off);
  send(plain, 150000, off);
  EXPECT_DOUBLE_EQ(plain.target_rate(), 10e9);
  EXPECT_DOUBLE_EQ(plain.current_rate(), 5.3125e9);

  // With path_ba (one cycle count, the 5 ms timer): the same at the first timer cycle end, 5 ms.
  c.path_ba = true;
  qcn_rp_state ba(line);
  for (int i = 0; i < 4; ++i) ba.on_cnm(63, 0, c);
  EXPECT_TRUE(ba.on_timer(5000000000ull, c));
  EXPECT_DOUBLE_EQ(ba.target_rate(), 1.25e9);
  EXPECT_DOUBLE_EQ(ba.current_rate(), 0.9375e9);
  c.path_ba = false;

  // TR <= 10 x CR: no reduction. One CNM: CR 5 G, TR 10 G <= 50 G; CR = (5 + 10)/2 = 7.5 G.
  qcn_rp_state mild(line);
  mild.on_cnm(63, 0, c);
  send(mild, 150000, c);
  EXPECT_DOUBLE_EQ(mild.target_rate(), 10e9);
  EXPECT_DOUBLE_EQ(mild.current_rate(), 7.5e9);
}

TEST(QcnRp, PathBaFb99PushesBackOneCycleAndRestartsTheTimer) {
  constexpr uint64_t ms = 1000000000ull;  // ps
  qcn_rp_config c = rp_config();
  // Off: a qFb = 0 CNM is ignored, as in the baseline.
  qcn_rp_state off(line);
  off.on_cnm(63, 0, c);
  EXPECT_FALSE(off.on_cnm(0, 1 * ms, c));
  EXPECT_EQ(off.timer_due_ps(), 15 * ms);  // the 15 ms qcn.timer

  c.path_ba = true;
  qcn_rp_state rp(line);
  EXPECT_FALSE(rp.on_cnm(0, 0, c));  // not limited: nothing to push back
  EXPECT_FALSE(rp.limited());
  rp.on_cnm(63, 0, c);                   // CR 5 G, TR 10 G
  EXPECT_EQ(rp.timer_due_ps(), 5 * ms);  // the 5 ms ba_timer replaces the 15 ms timer
  EXPECT_TRUE(rp.on_timer(5 * ms, c));   // cycle 1 (FR): CR = (5 + 10)/2 = 7.5 G
  EXPECT_EQ(rp.timer_stage(), 1);
  EXPECT_EQ(rp.byte_stage(), 1);  // one cycle count: a timer cycle counts for both
  EXPECT_DOUBLE_EQ(rp.current_rate(), 7.5e9);
  // Fb99 at 6 ms: CR, TR unchanged; back one cycle (1 -> 0); timer restarts, due 6 + 5 = 11 ms.
  EXPECT_TRUE(rp.on_cnm(0, 6 * ms, c));
  EXPECT_DOUBLE_EQ(rp.current_rate(), 7.5e9);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  EXPECT_EQ(rp.timer_stage(), 0);
  EXPECT_EQ(rp.byte_stage(), 0);
  EXPECT_EQ(rp.timer_due_ps(), 11 * ms);
  EXPECT_FALSE(rp.on_timer(10 * ms, c));  // the old due time no longer ends a cycle
  EXPECT_TRUE(rp.on_timer(11 * ms, c));   // CR = (7.5 + 10)/2 = 8.75 G, count 1
  EXPECT_DOUBLE_EQ(rp.current_rate(), 8.75e9);
  // A byte-counter cycle continues the same count: 1 -> 2 for both; CR = (8.75 + 10)/2 = 9.375 G.
  EXPECT_EQ(send(rp, 150000, c), 1);
  EXPECT_EQ(rp.byte_stage(), 2);
  EXPECT_EQ(rp.timer_stage(), 2);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 9.375e9);
  // Another Fb99: 2 -> 1, the count never goes below 0 on repeats (1 -> 0 -> 0).
  rp.on_cnm(0, 12 * ms, c);
  EXPECT_EQ(rp.timer_stage(), 1);
  rp.on_cnm(0, 12 * ms, c);
  rp.on_cnm(0, 12 * ms, c);
  EXPECT_EQ(rp.timer_stage(), 0);
  EXPECT_EQ(rp.byte_stage(), 0);
  EXPECT_EQ(rp.timer_due_ps(), 17 * ms);
}

TEST(QcnRp, PathBaTimerAloneReachesHyperActiveIncrease) {
  constexpr uint64_t ms = 1000000000ull;
  qcn_rp_config c = rp_config();
  c.path_ba = true;
  qcn_rp_state rp(line);
  rp.on_cnm(63, 0, c);  // CR 5 G, TR 10 G
  // Five FR timer cycles at 5, 10, 15, 20, 25 ms: CR 7.5, 8.75, 9.375, 9.6875, 9.84375 G.
  for (uint64_t t = 5; t <= 25; t += 5) EXPECT_TRUE(rp.on_timer(t * ms, c));
  EXPECT_DOUBLE_EQ(rp.current_rate(), 9.84375e9);
  EXPECT_EQ(rp.timer_due_ps(), 27500000000ull);  // past F: T/2 = 2.5 ms
  // Cycle 6 at 27.5 ms: both counts 6 > F = 5: hyper-active, i = 6 - 5 = 1:
  // TR = 10 + 0.05 = 10.05 G, CR = (9.84375 + 10.05)/2 = 9.946875 G.
  EXPECT_TRUE(rp.on_timer(27500000000ull, c));
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10.05e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 9.946875e9);
  // Cycle 7 at 30 ms, i = 2: TR = 10.15 G, CR = (9.946875 + 10.15)/2 = 10.048 G >= 10 G: released.
  EXPECT_TRUE(rp.on_timer(30 * ms, c));
  EXPECT_FALSE(rp.limited());

  // The baseline with the same timer cycles: only the timer counter passes F, active increase:
  // cycle 6 TR = 10 + 0.005 = 10.005 G, CR = (9.84375 + 10.005)/2 = 9.924375 G.
  qcn_rp_config b = rp_config();
  b.timer_ps = 5 * ms;
  qcn_rp_state base(line);
  base.on_cnm(63, 0, b);
  for (uint64_t t = 5; t <= 25; t += 5) base.on_timer(t * ms, b);
  base.on_timer(27500000000ull, b);
  EXPECT_EQ(base.byte_stage(), 0);
  EXPECT_DOUBLE_EQ(base.target_rate(), 10.005e9);
  EXPECT_DOUBLE_EQ(base.current_rate(), 9.924375e9);
}

TEST(QcnCp, PathBaBandwidthAvailableAfterTheQueueStaysLowAndFb99Otherwise) {
  constexpr uint64_t ms = 1000000000ull;
  qcn_cp_config c = linear_up_config();  // Qeq 26 624 B, w 2, base 150 KB, no jitter
  c.path_ba = true;                      // BA: below 9 000 B for 10 ms
  qcn_cp_state cp(1);
  cp.on_depth(20000, 0, c);  // above the BA threshold: BA = 0
  // t = 1 ms, a 150 000-B arrival (the whole first interval), Q = 20 000, Qold = 0:
  // Fb = -(20 000 - 26 624 + 2 x 20 000) = -33 376 < 0: an ordinary CNM, qFb 16 (band 2).
  qcn_sample s = cp.on_arrival(150000, 20000, c, 1 * ms);
  EXPECT_TRUE(s.sampled);
  EXPECT_EQ(s.qfb, 16);
  EXPECT_FALSE(s.push_back);
  EXPECT_EQ(cp.bytes_to_next_sample(), 42000u);  // 150 000 x 7/25
  // t = 2 ms, Q = 20 000 = Qold: Fb = -(-6 624 + 0) = 6 624 >= 0 with BA = 0: Fb99 push-back.
  // Next interval: the band of quantized |Fb| = ceil(6 624 x 63 / 133 120) = ceil(3.13) = 4, band 0:
  // 150 000.
  s = cp.on_arrival(42000, 20000, c, 2 * ms);
  EXPECT_TRUE(s.sampled);
  EXPECT_EQ(s.fb, 6624);
  EXPECT_EQ(s.qfb, 0);
  EXPECT_TRUE(s.push_back);
  EXPECT_EQ(cp.bytes_to_next_sample(), 150000u);
  // The queue falls to 5 000 B (< 9 000) at 3 ms: BA = 1 from 13 ms on.
  cp.on_depth(5000, 3 * ms, c);
  EXPECT_FALSE(cp.bandwidth_available(12 * ms, c));
  EXPECT_TRUE(cp.bandwidth_available(13 * ms, c));
  // t = 13 ms, Q = 5 000: Fb = -(5 000 - 26 624 + 2 x (5 000 - 20 000)) = 51 624 >= 0, BA = 1:
  // no push-back. quantized |Fb| = ceil(51 624 x 63 / 133 120) = ceil(24.43) = 25, band 3: the
  // next interval shrinks to 150 000 / (1 + 27/7) = 30 882 (a positive Fb samples faster too).
  s = cp.on_arrival(150000, 5000, c, 13 * ms);
  EXPECT_TRUE(s.sampled);
  EXPECT_EQ(s.fb, 51624);
  EXPECT_FALSE(s.push_back);
  EXPECT_EQ(cp.bytes_to_next_sample(), 30882u);
  // At or above the threshold the BA timer restarts: up at 14 ms, down at 15 ms: BA from 25 ms.
  cp.on_depth(9000, 14 * ms, c);
  EXPECT_FALSE(cp.bandwidth_available(14 * ms, c));
  cp.on_depth(100, 15 * ms, c);
  EXPECT_FALSE(cp.bandwidth_available(24 * ms, c));
  EXPECT_TRUE(cp.bandwidth_available(25 * ms, c));

  // Off (the baseline): the same Fb >= 0 sample asks for nothing and keeps the band-0 interval.
  qcn_cp_state plain(1);
  plain.on_arrival(150000, 20000, linear_up_config(), 1 * ms);
  s = plain.on_arrival(42000, 20000, linear_up_config(), 2 * ms);
  EXPECT_TRUE(s.sampled);
  EXPECT_FALSE(s.push_back);
  EXPECT_EQ(s.qfb, 0);
}

namespace {
qcn_rp_config sonar_config() {
  qcn_rp_config c = declared_rp_config();  // tutorial table: Gd 0.5, BC 150 KB, T 15 ms, F 5, ...
  c.sonar = true;                          // WP 5 ms, WE 1 ms, SF 1 ms
  return c;
}
constexpr uint64_t ms = 1'000'000'000;  // ps
}  // namespace

TEST(QcnRpSonar, PingWaitsProbesAndReturnsToWaitingOnAnEcho) {
  const qcn_rp_config c = sonar_config();
  qcn_rp_state rp(10e9);
  using ping = qcn_rp_state::ping;
  EXPECT_EQ(rp.ping_state(), ping::idle);
  EXPECT_EQ(rp.ping_due_ps(), 0u);
  ASSERT_TRUE(rp.on_cnm(63, 0, c));  // CR = 10G x (1 - 0.5) = 5G, TR = 10G; WP due at 5 ms
  EXPECT_EQ(rp.ping_state(), ping::wait_probe);
  EXPECT_EQ(rp.ping_due_ps(), 5 * ms);
  EXPECT_FALSE(rp.take_probe(1 * ms, c));     // nothing to probe yet
  EXPECT_FALSE(rp.on_ping_timer(5 * ms, c));  // WP expired: the next frame is the probe
  EXPECT_EQ(rp.ping_due_ps(), 0u);            // no timer until it is sent
  EXPECT_TRUE(rp.take_probe(5 * ms + 100, c));
  EXPECT_FALSE(rp.take_probe(5 * ms + 200, c));  // one probe
  EXPECT_EQ(rp.ping_state(), ping::wait_echo);
  EXPECT_EQ(rp.ping_due_ps(), 6 * ms + 100);   // WE: 1 ms
  EXPECT_TRUE(rp.on_cnm(0, 5 * ms + 500, c));  // the echo: back to WP, rates unchanged
  EXPECT_EQ(rp.ping_state(), ping::wait_probe);
  EXPECT_EQ(rp.ping_due_ps(), 10 * ms + 500);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 5e9);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10e9);
  EXPECT_FALSE(rp.on_cnm(0, 6 * ms, c));  // a qFb = 0 CNM outside WE (and no path_ba): ignored
}

TEST(QcnRpSonar, NoEchoMeansShortFuseAndHyperActiveIncreaseOnThePingTimerAndByteCounter) {
  const qcn_rp_config c = sonar_config();
  qcn_rp_state rp(10e9);
  using ping = qcn_rp_state::ping;
  rp.on_cnm(63, 0, c);  // CR 5G, TR 10G, WP due 5 ms
  rp.on_ping_timer(5 * ms, c);
  ASSERT_TRUE(rp.take_probe(5 * ms, c));  // WE due 6 ms
  // No echo by 6 ms: short fuse, both stage counts to F + 1 = 6 (no rate change yet).
  EXPECT_FALSE(rp.on_ping_timer(6 * ms, c));
  EXPECT_EQ(rp.ping_state(), ping::short_fuse);
  EXPECT_EQ(rp.byte_stage(), 6);
  EXPECT_EQ(rp.timer_stage(), 6);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 5e9);
  EXPECT_EQ(rp.ping_due_ps(), 7 * ms);
  // 7 ms: the fuse ends a cycle: timer stage 7, HAI with i = min(6, 7) - 5 = 1:
  // TR = 10G + 50M = 10.05G, CR = (5G + 10.05G) / 2 = 7.525G.
  EXPECT_TRUE(rp.on_ping_timer(7 * ms, c));
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10.05e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 7.525e9);
  EXPECT_EQ(rp.ping_due_ps(), 8 * ms);
  // The byte counter (150 KB since the cut) ends a cycle: byte stage 7, i = 7 - 5 = 2:
  // TR = 10.05G + 100M = 10.15G, CR = (7.525G + 10.15G) / 2 = 8.8375G.
  EXPECT_TRUE(rp.on_sent(150000, c));
  EXPECT_DOUBLE_EQ(rp.target_rate(), 10.15e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 8.8375e9);
  // A cut in SF (not FR1: TR <- CR): CR = 8.8375G / 2 = 4.41875G, back to WP due 13 ms.
  rp.on_cnm(63, 8 * ms, c);
  EXPECT_DOUBLE_EQ(rp.target_rate(), 8.8375e9);
  EXPECT_DOUBLE_EQ(rp.current_rate(), 4.41875e9);
  EXPECT_EQ(rp.ping_state(), ping::wait_probe);
  EXPECT_EQ(rp.ping_due_ps(), 13 * ms);
}

TEST(QcnRpSonar, OffByDefaultNoPingTimer) {
  const qcn_rp_config c = declared_rp_config();  // sonar false
  qcn_rp_state rp(10e9);
  rp.on_cnm(63, 0, c);
  EXPECT_EQ(rp.ping_state(), qcn_rp_state::ping::idle);
  EXPECT_EQ(rp.ping_due_ps(), 0u);
  EXPECT_FALSE(rp.take_probe(10 * ms, c));
}

TEST(QcnCp, SonarEchoesAProbeFrameWhileNoBandwidthIsAvailable) {
  cp_owner port("sonar_port");
  recording_injector injector;
  auto cp = cp_policies::instance().make("sonar_port.prio3.cp", "qcn", port, 3, injector);
  ASSERT_TRUE(cp);
  packet_header data = test::sampled_data_frame();
  const queue_view q = test::sampled_queue();  // 60 000 B: above ba_threshold (9000 B), so BA = 0
  cp->on_enqueue(data, q);
  data.flags = frame_flags::probe;
  cp->on_enqueue(data, q);  // sonar off (default): a probe is an ordinary frame
  EXPECT_TRUE(injector.frames.empty());
  param_registry::instance().set("qcn.sonar", "true", true);  // scheme-wide: both ends
  // A CP packs its configuration at its first frame of the run (qcn.sonar is fixed during a
  // run): one made now runs with sonar on.
  cp_owner port_on("sonar_port_on");
  cp = cp_policies::instance().make("sonar_port_on.prio3.cp", "qcn", port_on, 3, injector);
  cp->on_enqueue(data, q);  // the echo, not a sample (the first sample needs ~150 KB)
  ASSERT_EQ(injector.frames.size(), 1u);
  const packet_header& h = header(*injector.frames[0]);
  EXPECT_EQ(h.kind, frame_kind::cnm);
  EXPECT_EQ(h.dst, 3u);  // the probe's source
  EXPECT_EQ(h.flow_id, 11u);
  cnm_pdu pdu;
  ASSERT_TRUE(decode_cnm(*h.image, pdu));
  EXPECT_EQ(pdu.quantized_feedback, 0);  // an echo is a qFb = 0 CNM
  EXPECT_EQ(pdu.q_offset, (60000 - 26624) / 64);
  data.flags = 0;
  cp->on_enqueue(data, q);  // not a probe: no echo
  EXPECT_EQ(injector.frames.size(), 1u);
  injector.frames[0]->release();
  param_registry::instance().set("qcn.sonar", "false", true);
}
