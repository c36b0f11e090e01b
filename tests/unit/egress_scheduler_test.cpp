#include "models/switch/egress_scheduler.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>

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

// The DWRR of egress_scheduler::select as a plain loop over the eligible queues, without its
// shortcut for one eligible queue: the reference the scheduler must agree with, choice by choice.
namespace {
struct reference_dwrr {
  std::array<uint64_t, max_classes> deficit{}, grant{};
  uint32_t credited = 0;
  int current = 0;
  bool fresh = true;
  int select(const std::array<uint32_t, max_classes>& head, uint32_t eligible) {
    for (uint32_t idle = credited & ~eligible; idle; idle &= idle - 1) {
      const int q = __builtin_ctz(idle);
      if (head[q] == 0) {
        deficit[q] = 0;
        credited &= ~(1u << q);
      }
    }
    if (!eligible) return -1;
    for (;;) {
      const int q = current;
      if (eligible >> q & 1) {
        if (fresh) {
          deficit[q] += grant[q];
          credited |= 1u << q;
          fresh = false;
        }
        if (head[q] <= deficit[q]) {
          deficit[q] -= head[q];
          if (deficit[q] == 0) credited &= ~(1u << q);
          return q;
        }
      }
      const uint32_t higher = eligible & ~((2u << current) - 1);
      current = __builtin_ctz(higher ? higher : eligible);
      fresh = true;
    }
  }
};
}  // namespace

TEST(EgressScheduler, OneEligibleQueueIsServedAsTheRoundRobinLoopServesIt) {
  scheduler_config c = all_dwrr();
  for (int q = 0; q < 4; ++q) c.weight[q] = static_cast<uint32_t>(q % 3 + 1);
  egress_scheduler s(c);
  reference_dwrr ref;
  for (int q = 0; q < max_classes; ++q) ref.grant[q] = static_cast<uint64_t>(c.weight[q]) * c.quantum;
  std::mt19937_64 rng(23);
  const uint32_t sizes[] = {64, 1000, 1048, 1500, 1501, 3000, 4000, 9000};
  std::array<uint32_t, max_classes> head{};
  int alone = 0, by_one = 0;
  for (int step = 0; step < 200000; ++step) {
    // Four classes, each empty or holding a head of some size; of the non-empty, a random subset
    // may send (often one: the shortcut), sometimes none.
    uint32_t nonempty = 0;
    for (int q = 0; q < 4; ++q) {
      head[q] = rng() % 4 ? sizes[rng() % std::size(sizes)] : 0;
      if (head[q]) nonempty |= 1u << q;
    }
    uint32_t eligible = nonempty & static_cast<uint32_t>(rng());
    if (rng() % 2 && nonempty) {  // one of them alone
      uint32_t m = nonempty;
      for (auto skip = rng() % __builtin_popcount(m); skip; --skip) m &= m - 1;
      eligible = m & (~m + 1);
    }
    const bool one = eligible && !(eligible & (eligible - 1));
    alone += one;
    if (one && rng() % 2) {  // egress_port's one busy class: select_one charges as select does
      const int q = __builtin_ctz(eligible);
      if (!s.select_one(q, head[q])) {  // an idle queue forfeits: the general path serves it
        ASSERT_EQ(s.select(head, eligible), q) << "step " << step;
      }
      ASSERT_EQ(q, ref.select(head, eligible)) << "step " << step;
      ++by_one;
    } else {
      ASSERT_EQ(s.select(head, eligible), ref.select(head, eligible)) << "step " << step;
    }
  }
  EXPECT_GT(alone, 50000);
  EXPECT_GT(by_one, 25000);
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
