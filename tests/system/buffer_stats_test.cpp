// The whole-switch buffer statistic (issue 22): <sw>.mmu.buffer_bytes (now), buffer_peak_bytes,
// buffer_mean_bytes, shared_bytes, shared_peak_bytes, and the buffer_occupancy series, against
// the priority groups' own accounting.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

TEST(BufferStats, TheSwitchBufferIsTheSumOfItsPriorityGroups) {
  run_options o;
  o.until = sc_core::sc_time(2, sc_core::SC_MS);
  o.sample_period = sc_core::sc_time(10, sc_core::SC_US);
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  sim.run();
  const nlohmann::json s = sim.summary();
  switch_model& sw = *sim.fabric_model().switches[0];
  // Now: the sum of every group's reserved, shared and headroom bytes.
  uint64_t sum = 0, shared = 0, largest_group_peak = 0;
  for (std::size_t p = 0; p < sw.ports.size(); ++p)
    for (int c = 0; c < sw.mmu_block.classes(); ++c) {
      const pg_usage u = sw.mmu_block.usage(static_cast<int>(p), c);
      sum += u.total();
      shared += u.shared;
      largest_group_peak = std::max(largest_group_peak, u.peak_total);
    }
  EXPECT_EQ(sw.mmu_block.in_use_bytes(), sum);
  EXPECT_EQ(sw.mmu_block.shared_bytes(), shared);
  EXPECT_GT(sum, 0u) << "the incast holds a standing queue at 2 ms";
  const double peak = test::counter(s, "sw0.mmu.buffer_peak_bytes"),
               mean = test::counter(s, "sw0.mmu.buffer_mean_bytes");
  EXPECT_GE(peak, static_cast<double>(largest_group_peak));
  EXPECT_GE(peak, test::counter(s, "sw0.mmu.buffer_bytes"));
  EXPECT_GE(peak, test::counter(s, "sw0.mmu.shared_peak_bytes"));
  EXPECT_GT(mean, 0);
  EXPECT_LT(mean, peak);
  // The series: one column per switch, never above the peak, and its time average close to
  // the exact mean (a 10 us sample of a queue that moves slowly).
  const series& b = sim.samples().buffer_occupancy;
  ASSERT_EQ(b.columns, std::vector<std::string>{"sw0"});
  double total = 0;
  for (const auto& row : b.rows) {
    EXPECT_LE(row[0], peak);
    total += row[0];
  }
  EXPECT_NEAR(total / static_cast<double>(b.rows.size()), mean, 0.05 * mean);
}
