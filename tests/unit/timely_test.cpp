// TIMELY's notification point (the segment rule of its ACKs) and reaction point (the rate law)
// as pure state machines: scripted RTT samples and completion times in, exact branches and rates
// out. Every expectation is worked out by hand from the equations in docs/models/timely.md (the
// arithmetic is in the comments), not copied from a run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "models/cc/timely/timely_np.h"
#include "models/cc/timely/timely_rp.h"

using namespace sluice;

namespace {
constexpr uint64_t us = 1'000'000;  // ps
// The declared defaults (timely_rp.cpp), written out: the paper's (T_low 50 us, T_high 500 us,
// alpha 0.875, beta 0.8, delta 10 Mb/s, min RTT 20 us, HAI after 5, N = 5) on a 10 Gb/s line,
// floor 1 % of it = 100 Mb/s; the original variant (patched: RTT_ref 100 us, beta 0.008), the
// paper's profile (hpcc-sim: a 50 Mb/s hyper step).
timely_rp_config paper() {
  using v = timely_rp_config::variant_t;
  using p = timely_rp_config::profile_t;
  return {50 * us, 500 * us, 0.875,       0.8,      10e6,  20 * us,  5,   5.0,
          100e6,   10e9,     v::original, 100 * us, 0.008, p::paper, 50e6};
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

// ---- The update interval: on average one update per tau* = max(segment time, min_rtt) ----

namespace {
// Completions every `spacing` with a constant 30 us RTT (below T_low: each update adds delta)
// for `span`; returns the state. A 40 Gb/s line so that nothing clamps.
timely_rp_state steady_completions(uint64_t spacing, uint64_t span) {
  timely_rp_config c = paper();
  c.line_rate = 40e9;
  timely_rp_state rp(1e9);
  for (uint64_t t = 0; t <= span; t += spacing) rp.on_rtt(30 * us, t, c);
  return rp;
}
}  // namespace

TEST(TimelyRp, TheUpdateIntervalIsTheSegmentTimeOrMinRttWhicheverIsLongerAtEveryRate) {
  // 16 000-B segments (128 000 bits); min_rtt 20 us. Segment time = 128 000 / R:
  //   3 Gb/s  -> 42.67 us (below the band where Seg/R < min_rtt): every completion updates;
  //   7 Gb/s  -> 18.29 us (inside: 6.4-12.8 Gb/s, where dropping completions closer than
  //              min_rtt to the last update gave one update per 36.6 us): one per 20 us;
  //   40 Gb/s ->  3.2 us (above): one per 20 us.
  // Over 20 ms, updates = 20 ms / tau* (+1 for the one at t = 0), within one; each adds delta, so
  // the rate's average change is delta per tau*.
  const uint64_t span = 20000 * us;
  const struct {
    double gbps;
    double tau_us;
  } cases[] = {{3, 128.0 / 3}, {7, 20}, {40, 20}, {12, 20}, {6, 128.0 / 6}};
  for (const auto& k : cases) {
    const uint64_t spacing = static_cast<uint64_t>(128000.0 / (k.gbps * 1e9) * 1e12);
    const timely_rp_state rp = steady_completions(spacing, span);
    const double expected = 20000 / k.tau_us + 1;
    EXPECT_NEAR(static_cast<double>(rp.samples()), expected, 1.0) << k.gbps << " Gb/s";
    EXPECT_NEAR(rp.rate(), 1e9 + 10e6 * static_cast<double>(rp.samples()), 1.0) << k.gbps << " Gb/s";
  }
}

TEST(TimelyRp, AnUpdateCarriesItsLatenessOverToTheNextDueTimeUnlessAWholeIntervalLate) {
  const timely_rp_config c = paper();
  timely_rp_state rp(5e9);
  // Completions every 18 us: the first updates (due 20); 18 is early (skipped); 36 updates and
  // the next is due at 20 + 20 = 40 (not 36 + 20 = 56); 54 -> 60; 72 -> 80; ... 180 -> 200;
  // 198 is early; 216 -> 220. Eleven updates in the first 200 us, one per 20 us on average.
  const uint64_t updates_at[] = {0, 36, 54, 72, 90, 108, 126, 144, 162, 180, 216};
  std::size_t next = 0;
  for (uint64_t t = 0; t <= 216; t += 18) {
    const bool updated = rp.on_rtt(30 * us, t * us, c) != branch::none;
    const bool expected = next < std::size(updates_at) && updates_at[next] == t;
    EXPECT_EQ(updated, expected) << t << " us";
    if (expected) ++next;
  }
  EXPECT_EQ(rp.due_ps(), 220 * us);
  // After a silence of 1 ms the next completion updates and the next is due min_rtt after it
  // (no burst of banked updates).
  EXPECT_NE(rp.on_rtt(30 * us, 1216 * us, c), branch::none);
  EXPECT_EQ(rp.due_ps(), 1236 * us);
  EXPECT_EQ(rp.on_rtt(30 * us, 1230 * us, c), branch::none);
}

// ---- Patched TIMELY (CoNEXT'16) ----

TEST(TimelyRp, PatchedWeighsTheGradientAndCutsByTheErrorAgainstTheReferenceRtt) {
  EXPECT_DOUBLE_EQ(timely_rp_state::weight(-0.3), 0.0);
  EXPECT_DOUBLE_EQ(timely_rp_state::weight(-0.25), 0.0);
  EXPECT_DOUBLE_EQ(timely_rp_state::weight(0.0), 0.5);
  EXPECT_DOUBLE_EQ(timely_rp_state::weight(0.1), 0.7);
  EXPECT_DOUBLE_EQ(timely_rp_state::weight(0.3), 1.0);
  timely_rp_config c = paper();
  c.variant = timely_rp_config::variant_t::patched;  // rtt_ref 100 us, patched_beta 0.008
  timely_rp_state rp(5e9);
  // 150 us, first sample: gradient 0, w = 1/2, error (150 - 100)/100 = 0.5:
  // rate = 10M x 0.5 + 5G x (1 - 0.008 x 0.5 x 0.5) = 5M + 5G x 0.998 = 4.995G.
  EXPECT_EQ(rp.on_rtt(150 * us, 0, c), branch::patched);
  EXPECT_DOUBLE_EQ(rp.rate(), 4.995e9);
  // 154 us, 20 us later: rtt_diff = 0.875 x 4 = 3.5 us, g = 0.175, w = 0.85, error 0.54:
  // rate = 10M x 0.15 + 4.995G x (1 - 0.008 x 0.85 x 0.54) = 1.5M + 4.995G x 0.996328.
  EXPECT_EQ(rp.on_rtt(154 * us, 20 * us, c), branch::patched);
  EXPECT_NEAR(rp.rate(), 1.5e6 + 4.995e9 * (1 - 0.008 * 0.85 * 0.54), 1.0);
  // Below T_low and above T_high the original branches stay.
  EXPECT_EQ(rp.on_rtt(40 * us, 40 * us, c), branch::low);
  EXPECT_EQ(rp.on_rtt(600 * us, 60 * us, c), branch::high);
}

namespace {
// Two TIMELY flows through one bottleneck of C = 10 Gb/s, a fluid queue (dq/dt = sum of rates
// - C, not below 0), base RTT 20 us; each flow completes a 16 000-B segment per 128 000 bits it
// sends and samples RTT = base + q / C. Steps of 0.5 us for `span`; returns the two rates.
// `trace`, if given, sees (time in ps, the two rates, the queue in bits) every 100 us.
std::pair<double, double> two_flows(const timely_rp_config& c, double r1, double r2, uint64_t span,
                                    const std::function<void(uint64_t, double, double, double)>& trace = {}) {
  const double cap = 10e9, base = 20e-6, seg = 128000, dt = 0.5e-6;
  timely_rp_state a(r1), b(r2);
  double q = 0, sent_a = 0, sent_b = 0;  // bits
  for (uint64_t t = 0; t < span; t += 500'000) {
    if (trace && t % (100 * us) == 0) trace(t, a.rate(), b.rate(), q);
    q = std::max(0.0, q + (a.rate() + b.rate() - cap) * dt);
    const uint64_t rtt = static_cast<uint64_t>((base + q / cap) * 1e12);
    sent_a += a.rate() * dt;
    sent_b += b.rate() * dt;
    if (sent_a >= seg) sent_a -= seg, a.on_rtt(rtt, t, c);
    if (sent_b >= seg) sent_b -= seg, b.on_rtt(rtt, t, c);
  }
  return {a.rate(), b.rate()};
}
}  // namespace

TEST(TimelyRp, FromASevenToThreeStartTheOriginalStaysUnfairAndPatchedConverges) {
  // Original TIMELY: both flows see the same RTT, but the 7 Gb/s flow updates every
  // max(Seg/R, min_rtt) = 20 us and the 3 Gb/s one every 42.7 us, so the faster flow adds delta
  // more often; the gradient cuts are proportional and do not undo it. The rates drift apart
  // (CoNEXT'16: no unique fixed point; measured: 9.10 / 0.90 Gb/s at 100 ms, 9.90 / 0.10 at
  // 300 ms, the smaller one at the floor).
  timely_rp_config c = paper();
  double smaller = 0.3;
  for (uint64_t ms : {100, 200, 300}) {
    const auto [r1, r2] = two_flows(c, 7e9, 3e9, ms * 1000 * us);
    EXPECT_LT(r2 / (r1 + r2), smaller) << ms << " ms";  // never closer to fair than the start
    smaller = r2 / (r1 + r2);
  }
  // Patched TIMELY: its fixed point has gradient 0, so w* = 1/2, and delta (1 - w*) =
  // R* patched_beta w* e*, with the same error e* for both flows: R* = delta / (patched_beta e*)
  // for each, so R* = C/N = 5 Gb/s and e* = N delta / (patched_beta C) = 0.25 (RTT* = 125 us).
  // Near it both flows see the same w and e, so each update scales their difference by
  // 1 - patched_beta w* e* = 1 - N delta / (2C) = 0.999; updates come every
  // tau* = max(Seg/R*, min_rtt) = 128 000 / 5 Gb/s = 25.6 us: the relative gap
  // (R1 - R2)/(R1 + R2) decays at least as exp(-t / T), T = 2 C tau* / (N delta) = 25.6 ms.
  // Measured: 0.335 at 5 ms, 0.0095 at 100 ms, 1.9e-4 at 200 ms (a ratio of 0.0200 against the
  // bound's exp(-100/25.6) = 0.0201).
  c.variant = timely_rp_config::variant_t::patched;
  const auto [a1, a2] = two_flows(c, 7e9, 3e9, 100000 * us);
  const auto [b1, b2] = two_flows(c, 7e9, 3e9, 200000 * us);
  const double gap100 = (a1 - a2) / (a1 + a2), gap200 = (b1 - b2) / (b1 + b2);
  EXPECT_GT(gap100, 0);
  EXPECT_LE(gap200 / gap100, 1.05 * std::exp(-100.0 / 25.6));
  EXPECT_NEAR(b1, 5e9, 0.001 * 5e9);
  EXPECT_NEAR(b2, 5e9, 0.001 * 5e9);
}

// The two trajectories of the test above for tools/timely_fluid_compare.py, which runs this test
// with SLUICE_TIMELY_TRAJECTORY set to a file: "variant,t_us,r1,r2,q_bits" rows, 300 ms of the
// original and 200 ms of patched TIMELY from 7 : 3 Gb/s. Skipped otherwise.
TEST(TimelyRp, TwoFlowTrajectoriesForTheFluidComparison) {
  const char* path = std::getenv("SLUICE_TIMELY_TRAJECTORY");
  if (!path) GTEST_SKIP() << "SLUICE_TIMELY_TRAJECTORY not set (tools/timely_fluid_compare.py sets it)";
  std::ofstream out(path);
  out << "variant,t_us,r1,r2,q_bits\n";
  timely_rp_config c = paper();
  for (const char* name : {"original", "patched"}) {
    const auto row = [&](uint64_t t, double r1, double r2, double q) {
      out << name << ',' << t / us << ',' << r1 << ',' << r2 << ',' << q << '\n';
    };
    two_flows(c, 7e9, 3e9, (c.variant == timely_rp_config::variant_t::original ? 300000 : 200000) * us, row);
    c.variant = timely_rp_config::variant_t::patched;
  }
  EXPECT_TRUE(out.good()) << path;
}

// ---- The HPCC ns-3 simulator's TIMELY (timely.profile = hpcc-sim) ----

TEST(TimelyRp, HpccSimUpdatesOncePerRttWithAHyperStepAfterFiveIncreasesInARow) {
  timely_rp_config c = paper();
  c.profile = timely_rp_config::profile_t::hpcc_sim;  // hai_step 50 Mb/s
  timely_rp_state rp(5e9);
  // The first ACK (offset 16 000; 64 000 sent) only records its RTT, 30 us.
  EXPECT_EQ(rp.on_rtt(30 * us, 0, c, 16000, 64000), branch::none);
  EXPECT_DOUBLE_EQ(rp.rate(), 5e9);
  // ACKs up to the 64 000 sent then belong to the same RTT: no update.
  EXPECT_EQ(rp.on_rtt(30 * us, 5 * us, c, 64000, 96000), branch::none);
  // The first ACK past it updates (diff 0, 30 < T_low): + delta, one increase; the next update
  // needs an ACK past 128 000, the offset sent by now.
  EXPECT_EQ(rp.on_rtt(30 * us, 10 * us, c, 80000, 128000), branch::low);
  EXPECT_DOUBLE_EQ(rp.rate(), 5.01e9);
  EXPECT_EQ(rp.on_rtt(30 * us, 12 * us, c, 128000, 130000), branch::none);
  // Four more increases below T_low: 5.05 G after five in a row; the sixth adds the hyper step,
  // below T_low too (the paper's HAI is only on the gradient branch): 5.10 G.
  uint64_t acked = 128000;
  for (int i = 0; i < 4; ++i, acked += 100000)
    EXPECT_EQ(rp.on_rtt(30 * us, (20 + 10 * i) * us, c, acked + 1, acked + 100000), branch::low);
  EXPECT_NEAR(rp.rate(), 5.05e9, 1.0);
  EXPECT_EQ(rp.increases(), 5u);
  EXPECT_EQ(rp.on_rtt(30 * us, 100 * us, c, acked + 1, acked + 100000), branch::hai);
  EXPECT_NEAR(rp.rate(), 5.10e9, 1.0);
  acked += 100000;
  // 130 us: new diff 100 us, rtt_diff = 0.875 x 100 = 87.5 us, gradient 4.375: the factor
  // 1 - 0.8 x 4.375 < 0 is held at 0, so the rate falls to the floor (100 Mb/s); the count resets.
  EXPECT_EQ(rp.on_rtt(130 * us, 110 * us, c, acked + 1, acked + 100000), branch::decrease);
  EXPECT_DOUBLE_EQ(rp.rate(), 0.1e9);
  EXPECT_EQ(rp.increases(), 0u);
}
