#include "models/switch/egress_scheduler.h"

#include <gtest/gtest.h>

using namespace sluice;

namespace {
// Serves `rounds` frames from permanently backlogged queues and returns bytes per queue.
std::array<uint64_t, max_classes> serve(egress_scheduler& s, std::array<uint32_t, max_classes> sizes, uint32_t eligible,
                                        int frames) {
  std::array<uint64_t, max_classes> bytes{};
  for (int i = 0; i < frames; ++i) {
    int q = s.select(sizes, eligible);
    EXPECT_GE(q, 0);
    bytes[q] += sizes[q];
  }
  return bytes;
}
scheduler_config all_dwrr() {
  scheduler_config c;
  c.weight.fill(1);
  return c;
}
}  // namespace

TEST(EgressScheduler, DwrrWeightsOneToThreeGiveQuarterAndThreeQuarters) {
  scheduler_config c = all_dwrr();
  c.weight[1] = 1;
  c.weight[2] = 3;
  egress_scheduler s(c);
  std::array<uint32_t, max_classes> sizes{};
  sizes[1] = 1000;
  sizes[2] = 1000;
  auto bytes = serve(s, sizes, 0b110, 4000);
  double share1 = static_cast<double>(bytes[1]) / (bytes[1] + bytes[2]);
  EXPECT_NEAR(share1, 0.25, 0.005);
}

TEST(EgressScheduler, DwrrIsFairInBytesNotFrames) {
  egress_scheduler s(all_dwrr());
  std::array<uint32_t, max_classes> sizes{};
  sizes[0] = 1500;
  sizes[5] = 300;  // small frames must not win more bandwidth
  auto bytes = serve(s, sizes, 0b100001, 6000);
  EXPECT_NEAR(static_cast<double>(bytes[0]) / (bytes[0] + bytes[5]), 0.5, 0.01);
}

TEST(EgressScheduler, StrictPriorityPreemptsDwrrAndOrdersByPriority) {
  scheduler_config c = all_dwrr();
  c.strict[6] = true;
  c.strict[4] = true;
  egress_scheduler s(c);
  std::array<uint32_t, max_classes> sizes{};
  sizes.fill(1000);
  EXPECT_EQ(s.select(sizes, 0xFF), 6);
  EXPECT_EQ(s.select(sizes, 0xFF & ~(1u << 6)), 4);
  int q = s.select(sizes, 0b00000011);
  EXPECT_TRUE(q == 0 || q == 1);
  EXPECT_EQ(s.select(sizes, 0), -1);
}

TEST(EgressScheduler, IneligibleQueueIsSkippedWithoutStarvingOthers) {
  egress_scheduler s(all_dwrr());
  std::array<uint32_t, max_classes> sizes{};
  sizes[2] = 1000;
  sizes[3] = 1000;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s.select(sizes, 1u << 3), 3);  // queue 2 paused
}
