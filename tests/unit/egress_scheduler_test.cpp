#include "models/switch/egress_scheduler.h"

#include <gtest/gtest.h>

#include "models/switch/switch_policies.h"

using namespace sluice;

namespace {
// Serves `rounds` frames from permanently backlogged queues and returns bytes per queue.
std::array<uint64_t, max_classes> serve(scheduler_if& s, std::array<uint32_t, max_classes> sizes, uint32_t eligible,
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

TEST(EgressScheduler, ALiveWeightChangeAppliesFromTheNextChoice) {
  // 1:1, then (a live <sw>.port<i>.prio2.weight write) 1:3 for the frames after it.
  egress_scheduler s(all_dwrr());
  std::array<uint32_t, max_classes> sizes{};
  sizes[1] = 1000;
  sizes[2] = 1000;
  auto before = serve(s, sizes, 0b110, 4000);
  EXPECT_NEAR(static_cast<double>(before[1]) / (before[1] + before[2]), 0.5, 0.005);
  scheduler_config c = all_dwrr();
  c.weight[2] = 3;
  s.reconfigure(c);
  auto after = serve(s, sizes, 0b110, 4000);
  EXPECT_NEAR(static_cast<double>(after[1]) / (after[1] + after[2]), 0.25, 0.005);
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

// ib-vlarb (models/switch/policies/ib_vl_arbiter.cpp), made by name as a port makes it.
namespace {
std::unique_ptr<scheduler_if> vl_arbiter(const scheduler_config& c) {
  return scheduler_policies::instance().make("test", "ib-vlarb", c, nullptr);
}
}  // namespace

TEST(IbVlArbiter, LowTableWeightsOneToThreeGiveQuarterAndThreeQuarters) {
  // Weights 1 and 3 (64 and 192 bytes per visit) with 1024-byte packets: each packet overruns
  // its entry, the debt is carried, so VL1 sends once per 16 visits and VL2 once per 16/3:
  // 25% / 75% of the bytes.
  scheduler_config c = all_dwrr();
  c.weight[1] = 1;
  c.weight[2] = 3;
  auto s = vl_arbiter(c);
  std::array<uint32_t, max_classes> sizes{};
  sizes[1] = sizes[2] = 1024;
  auto bytes = serve(*s, sizes, 0b110, 4000);
  EXPECT_NEAR(static_cast<double>(bytes[1]) / (bytes[1] + bytes[2]), 0.25, 0.02);
}

TEST(IbVlArbiter, HighTableFirstUpToTheHighPriorityLimit) {
  // VL1 in the high table, VL0 low, 1024-byte packets. Limit 1 (4 KiB): four high packets, then
  // one low packet must go: 80% high. Limit 0: one high packet at a time: 50%. 255: all high.
  std::array<uint32_t, max_classes> sizes{};
  sizes[0] = sizes[1] = 1024;
  for (auto [limit, share] : {std::pair<uint32_t, double>{1, 0.8}, {0, 0.5}, {255, 1.0}}) {
    scheduler_config c = all_dwrr();
    c.strict[1] = true;
    c.high_limit = limit;
    auto s = vl_arbiter(c);
    auto bytes = serve(*s, sizes, 0b11, 1000);
    EXPECT_NEAR(static_cast<double>(bytes[1]) / (bytes[0] + bytes[1]), share, 0.005) << "limit " << limit;
  }
  // Without a waiting low VL, the high table sends freely.
  scheduler_config c = all_dwrr();
  c.strict[1] = true;
  auto s = vl_arbiter(c);
  EXPECT_EQ(serve(*s, sizes, 0b10, 10)[1], 10u * 1024);
}

TEST(IbVlArbiter, Vl15GoesBeforeEveryDataVl) {
  scheduler_config c = all_dwrr();
  c.strict[3] = true;
  auto s = vl_arbiter(c);
  std::array<uint32_t, max_classes> sizes{};
  sizes[3] = sizes[15] = 256;
  EXPECT_EQ(s->select(sizes, (1u << 3) | (1u << 15)), 15);
  EXPECT_EQ(s->select(sizes, 1u << 3), 3);
}
