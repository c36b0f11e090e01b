#include "models/switch/shared_buffer.h"

#include <gtest/gtest.h>

using namespace sluice;

namespace {
struct resumes : resume_listener {
  std::vector<std::pair<int, int>> seen;
  void resumed(int port, int priority) override { seen.emplace_back(port, priority); }
};
shared_buffer make(bool dynamic, double alpha, uint64_t shared, pg_config pg, int ports = 2) {
  pg.alpha = alpha;
  return shared_buffer(ports, 8, buffer_config{shared, dynamic}, std::vector<pg_config>(ports * 8, pg));
}
}  // namespace

TEST(SharedBuffer, StaticXoffFiresWhenTheGroupReachesItsThresholdAndXonAfterHysteresis) {
  pg_config pg{true, 0, 0, 10000, 3000, 20000};
  auto b = make(false, 0, 1 << 20, pg);
  bool xoff = false, xon = false;
  for (int i = 0; i < 9; ++i) {
    ASSERT_EQ(b.admit(0, 3, 1000, xoff), admit_verdict::admitted);
    EXPECT_FALSE(xoff) << "frame " << i;
  }
  ASSERT_EQ(b.admit(0, 3, 1000, xoff), admit_verdict::admitted);  // shared = 10000 = xoff
  EXPECT_TRUE(xoff);
  EXPECT_TRUE(b.paused(0, 3));
  EXPECT_EQ(b.admit(0, 3, 1000, xoff), admit_verdict::admitted);  // into headroom
  EXPECT_FALSE(xoff);                                             // already paused: no second XOFF
  EXPECT_EQ(b.usage(0, 3).headroom, 1000u);
  // Resume needs an empty headroom and shared <= 10000 - 3000.
  resumes r;
  b.set_listener(&r);
  b.release(0, 3, 1000);
  EXPECT_TRUE(r.seen.empty());  // headroom emptied, shared still 10000
  b.release(0, 3, 2000);
  EXPECT_TRUE(r.seen.empty());  // 8000 > 7000
  b.release(0, 3, 1000);
  EXPECT_EQ(r.seen, (std::vector<std::pair<int, int>>{{0, 3}}));  // 7000 <= 7000
  EXPECT_FALSE(b.paused(0, 3));
}

TEST(SharedBuffer, LosslessDropsOnlyWhenHeadroomOverflows) {
  pg_config pg{true, 0, 0, 4000, 1000, 2000};
  auto b = make(false, 0, 1 << 20, pg);
  bool xoff;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(b.admit(1, 0, 1000, xoff), admit_verdict::admitted);  // 4000 + 2000
  EXPECT_EQ(b.admit(1, 0, 1000, xoff), admit_verdict::dropped);
  EXPECT_EQ(b.usage(1, 0).total(), 6000u);
}

TEST(SharedBuffer, LossyGroupDropsAtThresholdAndNeverPauses) {
  pg_config pg{false, 0, 0, 3000, 1000, 50000};
  auto b = make(false, 0, 1 << 20, pg);
  bool xoff;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(b.admit(0, 1, 1000, xoff), admit_verdict::admitted);
  EXPECT_EQ(b.admit(0, 1, 1000, xoff), admit_verdict::dropped);
  EXPECT_FALSE(b.paused(0, 1));
}

TEST(SharedBuffer, ReservedSpaceComesFirstAndIsNotShared) {
  pg_config pg{true, 0, 2000, 1000, 500, 5000};
  auto b = make(false, 0, 1 << 20, pg);
  bool xoff;
  b.admit(0, 0, 1000, xoff);
  b.admit(0, 0, 1000, xoff);
  EXPECT_EQ(b.usage(0, 0).reserved, 2000u);
  EXPECT_EQ(b.shared_used(), 0u);
  b.admit(0, 0, 1000, xoff);
  EXPECT_EQ(b.shared_used(), 1000u);
  EXPECT_TRUE(xoff);  // shared reached the 1000-byte static threshold
}

TEST(SharedBuffer, DynamicThresholdIsAlphaTimesFreeSharedBuffer) {
  pg_config pg{true, 0, 0, 0, 0, 100000};
  auto b = make(true, 0.5, 100000, pg);
  EXPECT_EQ(b.threshold(0, 0), 50000u);
  bool xoff;
  for (int i = 0; i < 10; ++i) b.admit(1, 2, 1000, xoff);  // another group takes 10 KB
  EXPECT_EQ(b.threshold(0, 0), 45000u);
}

TEST(SharedBuffer, DynamicThresholdSteadyStateSplitsThePool) {
  // With N congested groups each settles at alpha/(1 + N alpha) of the pool (Choudhury-Hahne).
  const int n = 4;
  const double alpha = 1.0;
  pg_config pg{false, 0, 0, 0, 0, 0};
  auto b = make(true, alpha, 1000000, pg, n);
  bool xoff;
  for (int round = 0; round < 2000; ++round)
    for (int p = 0; p < n; ++p) b.admit(p, 0, 100, xoff);
  double expected = alpha / (1 + n * alpha) * 1000000;
  for (int p = 0; p < n; ++p) EXPECT_NEAR(static_cast<double>(b.usage(p, 0).shared), expected, 200);
}

TEST(SharedBuffer, FramesOccupyWholeCells) {
  pg_config pg{true, 0, 0, 100000, 0, 0};
  shared_buffer b(1, 8, buffer_config{1 << 20, false, 144}, std::vector<pg_config>(8, pg));
  bool flag;
  b.admit(0, 0, 64, flag);    // 1 cell
  b.admit(0, 0, 1000, flag);  // 7 cells (1008 B)
  EXPECT_EQ(b.usage(0, 0).shared, 144u + 1008u);
  EXPECT_EQ(b.shared_used(), 1152u);
  b.release(0, 0, 1000);
  b.release(0, 0, 64);
  EXPECT_EQ(b.usage(0, 0).total(), 0u);
  EXPECT_EQ(b.shared_used(), 0u);
}

TEST(SharedBuffer, EachGroupHasItsOwnAlpha) {
  // Lossless groups at 1/8 and lossy ones at 8 (SONiC Broadcom), on a 1 MB pool.
  std::vector<pg_config> pgs(8, pg_config{true, 0.125, 0, 0, 0, 100000});
  pgs[5] = pg_config{false, 8.0, 0, 0, 0, 0};
  shared_buffer b(1, 8, buffer_config{1000000, true}, pgs);
  EXPECT_EQ(b.threshold(0, 3), 125000u);
  EXPECT_EQ(b.threshold(0, 5), 8000000u);
}

TEST(SharedBuffer, DynamicThresholdResumesOtherGroupsWhenThePoolGrows) {
  // alpha 1 on a 20000-byte pool: a group's threshold is the free pool.
  pg_config pg{true, 1.0, 0, 0, 0, 100000};
  shared_buffer b(3, 1, buffer_config{20000, true}, std::vector<pg_config>(3, pg));
  resumes r;
  b.set_listener(&r);
  bool xoff = false;
  for (int i = 0; i < 6; ++i) b.admit(2, 0, 1000, xoff);  // port 2 holds 6000: free 14000
  for (int i = 0; i < 7; ++i) b.admit(0, 0, 1000, xoff);  // port 0: 7000 >= free 7000 -> XOFF
  EXPECT_TRUE(xoff);
  EXPECT_TRUE(b.paused(0, 0));
  // Port 2 drains: port 0's own releases never happen (it is paused upstream and its frames
  // wait elsewhere), yet the pool grew and its threshold with it.
  for (int i = 0; i < 6; ++i) b.release(2, 0, 1000);
  EXPECT_FALSE(b.paused(0, 0));
  EXPECT_EQ(r.seen, (std::vector<std::pair<int, int>>{{0, 0}}));
}
