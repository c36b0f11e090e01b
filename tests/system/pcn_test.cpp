// PCN end to end on its testbed dumbbell (scenarios/dumbbell-pcn.yaml): 4 line-rate flows (two
// from h0) share a 10 Gb/s bottleneck, RTT about 500 us, T = 500 us, w_min = 1/128. Bounds from
// the paper's fluid model (Appendix A; docs/models/pcn.md, "Validation"):
//   - one control loop after the first congested CNPs, the rates sum to (1 - w_min) x (sum of
//     the receiving rates) = (1 - w_min) C = 9.922 Gb/s;
//   - the queue built before that drains at C - sum R = w_min C = 78 Mb/s per second, emptying
//     after ceil(1 + (sum R(0) - C) / (w_min C)) periods of the overshoot;
//   - then it oscillates between 0 and dQ = (N - 2 + w_min) w_min C T = 9.8 KB (here up to about
//     twice that, see below) while the link stays busy at (1 - w_min) C or more, and the flows
//     converge to the fair share C/N.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
std::size_t column(const series& s, const std::string& name) {
  const auto it = std::find(s.columns.begin(), s.columns.end(), name);
  EXPECT_NE(it, s.columns.end()) << name;
  return static_cast<std::size_t>(it - s.columns.begin());
}
}  // namespace

TEST(PcnSystem, DumbbellCutsInOneLoopDrainsAtWminCThenSharesFairlyWithASmallQueue) {
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-pcn.yaml")), {});
  sim.run();
  const sampler& s = sim.samples();
  constexpr double C = 10e9, w_min = 1.0 / 128, T = 500e-6;
  constexpr int N = 4;

  // Rate limits: line rate until the first CNPs (first frame at ~250 us, its period ends at
  // ~750 us, the CNP is back at ~1 ms), then (1 - w_min) of what the receivers measured. Within
  // 4 RTT (2 ms; the paper: "within 2 ms (4 RTT)") and for the whole drain: within 0.5 % of
  // (1 - w_min) C (each flow's period count is +-1 frame of ~150, 0.7 %, and the errors of the
  // four flows partly cancel; measured 9.906 Gb/s, -0.16 %).
  const series& rate = s.flow_rate;
  double sum_at_3ms = 0;
  for (std::size_t c = 0; c < rate.columns.size(); ++c) {  // the 4 flows' rates (h0->r0 twice), not targets
    if (rate.columns[c].find("target") != std::string::npos) continue;
    for (std::size_t r = 0; r < rate.rows.size(); ++r)
      if (rate.times_us[r] == 3000) sum_at_3ms += rate.rows[r][c];
  }
  EXPECT_NEAR(sum_at_3ms, (1 - w_min) * C, 0.005 * C);

  // The queue: peak before the cut (about 20 Gb/s of excess for ~1 ms = 2.5 MB), then a linear
  // drain at C - sum R ~ w_min C: empty after peak / (w_min C) ~ 257 ms. The measured sum is
  // slightly below (1 - w_min) C, so the drain is faster: we accept [0.5, 1.05] x 257 ms.
  const series& q = s.queue_depth;
  const std::size_t qc = column(q, "sw0.port3.p3");
  double peak = 0, peak_us = 0, empty_us = 0;
  for (std::size_t r = 0; r < q.rows.size(); ++r) {
    if (q.rows[r][qc] > peak) peak = q.rows[r][qc], peak_us = q.times_us[r];
    if (!empty_us && peak > 0 && q.times_us[r] > peak_us && q.rows[r][qc] <= 2000) empty_us = q.times_us[r];
  }
  EXPECT_GT(peak, 1.5e6);
  EXPECT_LT(peak_us, 3000);
  const double drain_us = peak * 8 / (w_min * C) * 1e6;
  EXPECT_GT(empty_us - peak_us, 0.5 * drain_us);
  EXPECT_LT(empty_us - peak_us, 1.05 * drain_us);

  // After the drain (from 300 ms). The fluid model assumes each decrease acts within the period
  // that built the queue; here a CNP describes the period before it and acts an RTT (= T) later,
  // so an overshoot lasts two periods (2 dQ), and the four flows' periods are not aligned (each
  // starts at its flow's first frame), so the decreases ending one arrive spread over a further
  // period: at most 2 x 2 dQ = 39.2 KB on average (measured mean 24.6 KB, median 20.5 KB).
  const double dq = (N - 2 + w_min) * w_min * C / 8 * T;  // 9.80 KB
  EXPECT_NEAR(dq, 9803, 1);
  std::vector<double> steady;
  for (std::size_t r = 0; r < q.rows.size(); ++r)
    if (q.times_us[r] > 300000) steady.push_back(q.rows[r][qc]);
  ASSERT_FALSE(steady.empty());
  double mean = 0;
  for (double v : steady) mean += v / static_cast<double>(steady.size());
  std::nth_element(steady.begin(), steady.begin() + steady.size() / 2, steady.end());
  EXPECT_LT(mean, 4 * dq);
  EXPECT_LT(steady[steady.size() / 2], 4 * dq);
  // Fair share C/N = 2.5 Gb/s. The allocation ratio converges geometrically by
  // a = (1 - w)^2 / ((1 - w)^2 + N w) = 0.9692 per N periods (eq. 13): from h0's flows' 1/6 to
  // within 10 % of 1/4 takes ln(0.3)/ln(1/0.9692) = 38.5 cycles of N T = 2 ms, 77 ms, doubled by
  // the two-period loop: by 215 + 154 = 369 ms. So over 350-400 ms each flow is within 10 % of
  // C/N (measured 2.30, 2.30, 2.67, 2.71 Gb/s) and Jain's index is >= 0.99 (0.9938).
  const series& tput = s.flow_throughput;
  std::vector<double> share(tput.columns.size(), 0.0);
  int rows = 0;
  for (std::size_t r = 0; r < tput.rows.size(); ++r)
    if (tput.times_us[r] > 350000) {
      ++rows;
      for (std::size_t c = 0; c < share.size(); ++c) share[c] += tput.rows[r][c];
    }
  double sum = 0, sq = 0;
  for (double& x : share) {
    x /= rows;
    EXPECT_NEAR(x, C / N / 1e9, 0.1 * C / N / 1e9);
    sum += x;
    sq += x * x;
  }
  EXPECT_GE(sum * sum / (static_cast<double>(share.size()) * sq), 0.99);
  // The bottleneck stays busy at (1 - w_min) C or more, less 1 % for the sampled average.
  const std::size_t lc = column(s.link_throughput, "sw0->sw1");
  double busy = 0;
  int n = 0;
  for (std::size_t r = 0; r < s.link_throughput.rows.size(); ++r)
    if (s.link_throughput.times_us[r] > 300000) busy += s.link_throughput.rows[r][lc], ++n;
  EXPECT_GT(busy / n, 0.99 * (1 - w_min) * C / 1e9);

  nlohmann::json summary = sim.summary();
  EXPECT_EQ(summary["totals"]["pause_frames"], 0);  // PCN keeps the queue below any PFC threshold
  EXPECT_EQ(summary["totals"]["drops"], 0);
  // One CNP per flow per period while frames arrive: 4 flows x 400 ms / 500 us = 3200, less the
  // first period of each (the first frame arrives after ~250 us).
  EXPECT_GE(summary["totals"]["cnp_frames"].get<double>(), 3180);
  EXPECT_LE(summary["totals"]["cnp_frames"].get<double>(), 3200);
}

// The paper's section 3 claim (scenarios/pcn-basic.yaml under --cc pcn): NP-ECN marks only at the
// really congested port (sw1 -> r1), so only F1 is cut, to its receiving rate there; no port is
// paused into an ON-OFF pattern that would mark F0, and F0, alone on sw0 -> sw1 once F1 is cut,
// climbs to use the spare bandwidth. So no PAUSE reaches sw0 or the victim's sender, and F0 gets
// more than its 20 Gb/s pre-burst share while the bursts last (measured 35.4 Gb/s over
// 1.2-4 ms), F1 less than a fifteenth of 40 Gb/s (it shares r1 with 14 burst senders; 2.0).
TEST(PcnSystem, PcnBasicKeepsPauseOffTheVictimsPathAndLetsTheVictimUseTheSpareBandwidth) {
  run_options o;
  o.cc = "pcn";
  simulation sim(load_scenario_file(test::scenario_path("pcn-basic.yaml")), o);
  sim.run();
  nlohmann::json s = sim.summary();
  EXPECT_EQ(test::find_port(s, "sw1", "sw0", 3)["pause_sent"], 0);
  EXPECT_EQ(test::find_port(s, "sw0", "h0", 3)["pause_sent"], 0);
  EXPECT_EQ(test::find_port(s, "sw0", "h1", 3)["pause_sent"], 0);
  EXPECT_GT(test::find_port(s, "sw1", "h2", 3)["pause_sent"].get<double>(), 0);  // the bursts still trip PFC
  EXPECT_EQ(s["totals"]["drops"], 0);
  const series& f = sim.samples().flow_throughput;
  const std::size_t f0 = column(f, "h0->r0"), f1 = column(f, "h1->r1");
  double a = 0, b = 0;
  int n = 0;
  for (std::size_t r = 0; r < f.rows.size(); ++r)
    if (f.times_us[r] > 1200 && f.times_us[r] <= 3800) a += f.rows[r][f0], b += f.rows[r][f1], ++n;
  EXPECT_GT(a / n, 30.0);
  EXPECT_LT(b / n, 40.0 / 15);
}

TEST(PcnSystem, WminAboveWmaxIsAOneLineError) {
  test::command_result r = test::run_cli("run " + test::scenario_path("dumbbell-pcn.yaml") +
                                         " --set h0.rp.w_min=0.75 --set h0.rp.w_max=0.5 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "sluice: error: h0.rp.w_min: 0.75 is above h0.rp.w_max (0.5)\n");
}
