// A replacement MMU bound to a switch stays bound, and everything that reports buffer use
// (summary ports[], the counters) reads it through the bound mmu_if, not the default block.
#include <gtest/gtest.h>

#include "tests/support/switch_bench.h"

using namespace sluice;

TEST(ReplacedMmu, StaysBoundAndReportsReadThroughIt) {
  auto sim = test::make_sim(test::one_switch("15000B", "run: {until: 20us}\n"));
  switch_model& sw = *sim->fabric_model().switches[0];
  test::counting_mmu mmu(sw.mmu_block);
  mmu.reported = pg_usage{0, 0, 0, 123456, 789};  // no real buffer holds this
  mmu.reported_headroom = 4321;                   // nor is this configured anywhere
  sw.bind_mmu(mmu);
  sim->run();
  EXPECT_EQ(&sw.active_mmu(), static_cast<const mmu_if*>(&mmu));
  EXPECT_EQ(mmu.admits.size(), 10u);  // 15000 B in 1500-byte frames
  EXPECT_EQ(mmu.releases.size(), 10u);
  const int in = test::port_toward(sim->fabric_model(), "sw0", "a", 2);
  nlohmann::json s = sim->summary();
  nlohmann::json port = test::find_port(s, "sw0", "a", 3);
  ASSERT_FALSE(port.is_null());
  EXPECT_EQ(port["max_ingress_bytes"].get<uint64_t>(), 123456u);
  EXPECT_EQ(port["max_headroom_bytes"].get<uint64_t>(), 789u);
  EXPECT_EQ(port["headroom_bytes"].get<uint64_t>(), 4321u);  // configuration, also through the bound MMU
  const std::string prio = "sw0.port" + std::to_string(in) + ".prio3.";
  EXPECT_EQ(s["counters"][prio + "ingress_peak_bytes"].get<double>(), 123456.0);
  EXPECT_EQ(s["counters"][prio + "headroom_peak_bytes"].get<double>(), 789.0);
  // The default block underneath saw the real frames: at most the two in flight at once.
  EXPECT_LT(sw.mmu_block.usage(in, 3).peak_total, 123456u);
}
