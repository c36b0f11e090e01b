// The PCN paper's section 3 congestion tree under PFC alone.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
// Mean of a flow's throughput column between two times (us), from the sampler.
double mean_gbps(const simulation& sim, const std::string& flow, double from_us, double to_us) {
  const series& s = sim.samples().flow_throughput;
  auto col = std::find(s.columns.begin(), s.columns.end(), flow) - s.columns.begin();
  double sum = 0;
  int n = 0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.times_us[r] > from_us && s.times_us[r] <= to_us) {
      sum += s.rows[r][col];
      ++n;
    }
  return n ? sum / n : 0;
}
}  // namespace

TEST(PcnBasic, VictimFlowLosesThroughputWhileBurstsLast) {
  simulation sim(load_scenario_file(test::scenario_path("pcn-basic.yaml")), {});
  sim.run();
  nlohmann::json s = sim.summary();
  EXPECT_EQ(s["totals"]["drops"], 0);
  // 14 x 16 bursts of 64 KB = 14.3 MB into r1 take at least 14.3e6 x 8 / 40e9 = 2.87 ms.
  double burst_bytes = 14.0 * 16 * 64000;
  double drain_us = burst_bytes * 8 / 40e9 * 1e6;
  // F0 (h0->r0) never crosses the congested sw1->r1 port; alone with F1 on sw0->sw1 its fair
  // share is 40/2 = 20 Gb/s. While the bursts last it is paused through sw0 and collapses.
  double during = mean_gbps(sim, "h0->r0", 200, drain_us - 200);
  double after = mean_gbps(sim, "h0->r0", drain_us + 1000, 6000);
  EXPECT_LT(during, 0.5 * 20.0) << "victim kept " << during << " Gb/s";
  EXPECT_NEAR(after, 20.0, 2.0);
  // The tree: sw1 pauses sw0 (port toward sw1), sw0 pauses h0 and h1.
  EXPECT_GT(test::find_port(s, "sw1", "sw0", 3)["pause_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "sw0", "sw1", 3)["pause_received"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "sw0", "h0", 3)["pause_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "h0", "sw0", 3)["pause_received"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "h0", "sw0", 3)["paused_time_ns"].get<double>(), 1e6);
  EXPECT_EQ(s["totals"]["flows_completed"], 224);
  // The tree's extent: sw0's port toward sw1, h0 and h1, and the 14 burst senders on sw1.
  EXPECT_GE(s["congestion_tree"]["max_ports_paused"].get<uint64_t>(), 3u);
  EXPECT_LE(s["congestion_tree"]["max_ports_paused"].get<uint64_t>(), 17u);
  const series& paused = sim.samples().paused_fraction;
  auto col = std::find(paused.columns.begin(), paused.columns.end(), "h0.port0.p3") - paused.columns.begin();
  ASSERT_LT(static_cast<std::size_t>(col), paused.columns.size());
  double h0_paused = 0;
  for (std::size_t r = 0; r < paused.rows.size(); ++r)
    if (paused.times_us[r] > 200 && paused.times_us[r] <= drain_us - 200) h0_paused += paused.rows[r][col];
  EXPECT_GT(h0_paused / std::count_if(paused.times_us.begin(), paused.times_us.end(),
                                      [&](double t) { return t > 200 && t <= drain_us - 200; }),
            0.5)
      << "the victim's NIC should be paused most of the burst";
}
