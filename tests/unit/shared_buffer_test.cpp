#include "models/switch/shared_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <numeric>
#include <random>

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
  bool xoff = false;
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

// A frame's occupancy is its size rounded up to whole cells, whatever the cell: the whole-byte
// cell skips the division (shared_buffer.h), and must round as the division does.
TEST(SharedBuffer, OccupancyIsWholeCellsForEveryCellAndSize) {
  std::mt19937_64 rng(5);
  for (uint64_t cell : {uint64_t{1}, uint64_t{2}, uint64_t{64}, uint64_t{96}, uint64_t{144}, uint64_t{1000003}}) {
    const shared_buffer b(1, 1, buffer_config{1 << 20, true, cell}, std::vector<pg_config>(1));
    for (int i = 0; i < 2000; ++i) {
      const uint64_t bytes = i < 4 ? static_cast<uint64_t>(i) : rng() % (uint64_t{1} << (rng() % 40));
      const uint64_t cells = bytes / cell + (bytes % cell != 0);
      ASSERT_EQ(b.occupancy(bytes), cells * cell) << bytes << " in cells of " << cell;
    }
  }
}

// The admission that returns its verdict and XOFF together (the switch's own path) and the one
// that sets a flag by reference (mmu_if's) decide alike: two buffers get the same random
// admissions and releases, one through each, and must answer and account the same.
TEST(SharedBuffer, TheVerdictAndXoffTogetherAreTheFlagsAnswer) {
  std::mt19937_64 rng(9);
  pg_config pg{true, 0.25, 1000, 0, 3000, 20000};
  shared_buffer a = make(true, 0.25, 200000, pg, 4), b = make(true, 0.25, 200000, pg, 4);
  std::vector<std::pair<int, uint32_t>> held;
  uint64_t xoffs = 0, drops = 0;
  for (int i = 0; i < 20000; ++i) {
    if (!held.empty() && rng() % 3 == 0) {  // more admissions than releases: pauses and drops
      const std::size_t k = rng() % held.size();
      a.release(held[k].first / 8, held[k].first % 8, held[k].second);
      b.release(held[k].first / 8, held[k].first % 8, held[k].second);
      held[k] = held.back();
      held.pop_back();
      continue;
    }
    const int g = static_cast<int>(rng() % 32);
    const uint32_t bytes = 64 + static_cast<uint32_t>(rng() % 1500);
    const admit_outcome x = a.admit(g / 8, g % 8, bytes);
    bool flag = !x.xoff_due;  // must be overwritten
    const bool admitted = b.admit(g / 8, g % 8, bytes, flag) == admit_verdict::admitted;
    ASSERT_EQ(x.admitted, admitted) << i;
    ASSERT_EQ(x.xoff_due, flag) << i;
    xoffs += flag;
    drops += !admitted;
    if (admitted) held.emplace_back(g, bytes);
    ASSERT_EQ(a.usage(g / 8, g % 8).total(), b.usage(g / 8, g % 8).total()) << i;
    ASSERT_EQ(a.paused(g / 8, g % 8), b.paused(g / 8, g % 8)) << i;
  }
  EXPECT_GT(xoffs, 10u);
  EXPECT_GT(drops, 10u);
  EXPECT_EQ(a.peak_in_use(), b.peak_in_use());
}

// The admission in two halves (the switch's own receive: admit_plain's accounting inline, then
// finish_admission when something is left) admits as admit() does. Two buffers get the same
// random admissions, releases and live configurations, one through each: every verdict, XOFF,
// XON, count and high-water mark must be the same. Under the built-in rule in whole bytes every
// kind of rest must occur; with cells, the static rule, a policy of its own, or an alpha out of
// the built-in rule's range (from a live write on), admit_plain must leave the whole admission.
TEST(SharedBuffer, TheAdmissionInTwoHalvesIsTheWholeAdmission) {
  struct plain_dynamic : threshold_policy {  // the dynamic rule through a policy's calls
    uint64_t limit(const pg_config& c, const pg_usage& u, uint64_t free_pool) const override {
      return dynamic_threshold().limit(c, u, free_pool);
    }
    bool follows_pool() const override { return true; }
  } own_policy;
  struct order : resume_listener {
    std::vector<std::pair<int, int>> seen;
    void resumed(int port, int priority) override { seen.emplace_back(port, priority); }
  };
  enum class kind { plain, cells, static_rule, own_rule, out_of_range };
  for (kind k : {kind::plain, kind::cells, kind::static_rule, kind::own_rule, kind::out_of_range}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      std::mt19937_64 rng(seed);
      const int ports = 4, priorities = 2, groups = ports * priorities;
      auto random_config = [&rng](std::size_t i) {
        const double alphas[] = {0.125, 0.25, 0.5, 1.0, 1.0 / 3};
        return pg_config{i % 4 != 3, alphas[rng() % 5],  uint64_t{rng() % 2 ? 0u : 2000u},
                         30000,      (rng() % 4) * 1000, uint64_t{rng() % 4 ? 8000u : 0u}};
      };
      std::vector<pg_config> pgs;
      for (std::size_t i = 0; i < groups; ++i) pgs.push_back(random_config(i));
      const buffer_config config{60000 + rng() % 40000, k != kind::static_rule, k == kind::cells ? 64u : 1u,
                                 k == kind::own_rule ? &own_policy : nullptr};
      shared_buffer whole(ports, priorities, config, pgs), halves(ports, priorities, config, pgs);
      order whole_xons, halves_xons;
      whole.set_listener(&whole_xons);
      halves.set_listener(&halves_xons);
      std::vector<std::deque<uint32_t>> held(groups);
      std::vector<uint64_t> rests(6);
      for (int step = 0; step < 20000; ++step) {
        const std::size_t i = rng() % groups;
        const int port = static_cast<int>(i) / priorities, priority = static_cast<int>(i) % priorities;
        const unsigned op = rng() % 100;
        if (op < 55) {
          const uint32_t bytes = 64 + static_cast<uint32_t>(rng() % 1500);
          const admit_outcome a = whole.admit(port, priority, bytes);
          const admit_rest rest = halves.admit_plain(port, priority, bytes);
          ++rests[static_cast<std::size_t>(rest)];
          const admit_outcome b = rest == admit_rest::none ? admit_outcome{true, false}
                                                           : halves.finish_admission(port, priority, bytes, rest);
          ASSERT_EQ(a.admitted, b.admitted) << step;
          ASSERT_EQ(a.xoff_due, b.xoff_due) << step;
          if (a.admitted) held[i].push_back(bytes);
        } else if (op < 98) {
          if (held[i].empty()) continue;
          whole.release(port, priority, held[i].front());
          halves.release(port, priority, held[i].front());
          held[i].pop_front();
        } else {
          pg_config c = random_config(i);
          if (k == kind::out_of_range && step > 10000) c.alpha = 2000;  // past the built-in rule's range
          whole.set_config(port, priority, c);
          halves.set_config(port, priority, c);
        }
        ASSERT_EQ(whole_xons.seen, halves_xons.seen) << step;
        for (int g = 0; g < groups; ++g) {
          const pg_usage &u = whole.usage(g / priorities, g % priorities),
                         &v = halves.usage(g / priorities, g % priorities);
          ASSERT_EQ(u.reserved, v.reserved) << step;
          ASSERT_EQ(u.shared, v.shared) << step;
          ASSERT_EQ(u.headroom, v.headroom) << step;
          ASSERT_EQ(u.peak_total, v.peak_total) << step;
          ASSERT_EQ(u.peak_headroom, v.peak_headroom) << step;
          ASSERT_EQ(u.overflows, v.overflows) << step;
          ASSERT_EQ(whole.paused(g / priorities, g % priorities), halves.paused(g / priorities, g % priorities))
              << step;
        }
        ASSERT_EQ(whole.shared_used(), halves.shared_used()) << step;
        ASSERT_EQ(whole.peak_shared(), halves.peak_shared()) << step;
        ASSERT_EQ(whole.peak_in_use(), halves.peak_in_use()) << step;
      }
      EXPECT_GT(whole_xons.seen.size(), 50u) << seed;
      const uint64_t general = rests[static_cast<std::size_t>(admit_rest::general)];
      if (k == kind::plain) {
        EXPECT_EQ(general, 0u);
        for (std::size_t r = 0; r < 5; ++r) EXPECT_GT(rests[r], 5u) << "rest " << r << " seed " << seed;
      } else if (k == kind::out_of_range) {
        EXPECT_GT(rests[static_cast<std::size_t>(admit_rest::none)], 100u);  // before the write
        EXPECT_GT(general, 100u);                                            // after it
      } else {
        EXPECT_EQ(general, static_cast<uint64_t>(std::accumulate(rests.begin(), rests.end(), uint64_t{0})));
      }
    }
  }
}

TEST(SharedBuffer, EachGroupHasItsOwnAlpha) {
  // Lossless groups at 1/8 and lossy ones at 8 (SONiC Broadcom), on a 1 MB pool.
  std::vector<pg_config> pgs(8, pg_config{true, 0.125, 0, 0, 0, 100000});
  pgs[5] = pg_config{false, 8.0, 0, 0, 0, 0};
  shared_buffer b(1, 8, buffer_config{1000000, true}, pgs);
  EXPECT_EQ(b.threshold(0, 3), 125000u);
  EXPECT_EQ(b.threshold(0, 5), 8000000u);
}

namespace {
// alpha 1 on a 20000-byte pool of three ports with one class: a group's threshold is the free
// pool. Port 2 holds 6000 (free 14000), then port 0 fills to 7000 >= free 7000 and pauses.
shared_buffer port0_paused_by_the_pool(const pg_config& pg, resumes& r) {
  shared_buffer b(3, 1, buffer_config{20000, true}, std::vector<pg_config>(3, pg));
  b.set_listener(&r);
  bool xoff = false;
  for (int i = 0; i < 6; ++i) b.admit(2, 0, 1000, xoff);
  for (int i = 0; i < 7; ++i) b.admit(0, 0, 1000, xoff);
  EXPECT_TRUE(xoff);
  return b;
}
}  // namespace

TEST(SharedBuffer, DynamicThresholdResumesOtherGroupsWhenThePoolGrows) {
  resumes r;
  shared_buffer b = port0_paused_by_the_pool(pg_config{true, 1.0, 0, 0, 0, 100000}, r);
  EXPECT_TRUE(b.paused(0, 0));
  // Port 2 drains: port 0's own releases never happen (it is paused upstream and its frames
  // wait elsewhere), yet the pool grew and its threshold with it.
  for (int i = 0; i < 6; ++i) b.release(2, 0, 1000);
  EXPECT_FALSE(b.paused(0, 0));
  EXPECT_EQ(r.seen, (std::vector<std::pair<int, int>>{{0, 0}}));
}

namespace {
// The dynamic rule again, but as a policy of its own: free_pool_for by the default search.
struct searched_dynamic : threshold_policy {
  uint64_t limit(const pg_config& c, const pg_usage& u, uint64_t free_pool) const override {
    return dynamic_threshold().limit(c, u, free_pool);
  }
  bool follows_pool() const override { return true; }
};
}  // namespace

TEST(SharedBuffer, TheResumePointIsTheLeastFreePoolWhoseThresholdReachesTheNeed) {
  // Against a scan of every pool size: the dynamic rule's own answer and the default search.
  const searched_dynamic searched;
  const uint64_t pool = 5000;
  for (double alpha : {1.0 / 1024, 0.1, 0.125, 1.0 / 3, 0.7, 1.0, 2.5, 8.0, 1024.0}) {
    pg_config c{true, alpha, 0, 0, 0, 0};
    pg_usage u;
    for (uint64_t need : {uint64_t{1}, uint64_t{7}, uint64_t{100}, uint64_t{999}, uint64_t{1234}, uint64_t{4999},
                          uint64_t{5000}, uint64_t{40000}, uint64_t{5000000}, uint64_t{6000000}}) {
      uint64_t least = threshold_policy::never_resumes;
      for (uint64_t f = 0; f <= pool; ++f)
        if (dynamic_threshold().limit(c, u, f) >= need) {
          least = f;
          break;
        }
      EXPECT_EQ(dynamic_threshold().free_pool_for(c, u, need, pool), least) << alpha << " " << need;
      EXPECT_EQ(searched.free_pool_for(c, u, need, pool), least) << alpha << " " << need;
    }
  }
}

TEST(SharedBuffer, TheResumePointOnRandomPoolsAlphasAndNeedsIsTheSearchs) {
  // The dynamic rule's own answer (in its fast range: signed conversions) against the default
  // search by halves (through limit(), unsigned conversions), on pools up to 64 GiB, alphas across
  // the parameter's range and needs below, near and above what the pool can reach.
  const searched_dynamic searched;
  std::mt19937_64 rng(7);
  for (int n = 0; n < 200000; ++n) {
    const uint64_t pool = rng() % (uint64_t{1} << (1 + rng() % 36));
    const double alpha = std::exp2(-10.0 + 20.0 * static_cast<double>(rng() % 1000000) / 1e6);
    const pg_config c{true, n % 4 == 0 ? std::ldexp(1.0, static_cast<int>(rng() % 21) - 10) : alpha, 0, 0, 0, 0};
    const pg_usage u;
    const uint64_t reach = dynamic_threshold().limit(c, u, pool);
    const uint64_t need = rng() % 3 == 0 ? reach + rng() % 3 - 1 : 1 + rng() % (reach + 2);
    ASSERT_EQ(dynamic_threshold().free_pool_for(c, u, need, pool), searched.free_pool_for(c, u, need, pool))
        << "pool " << pool << " alpha " << c.alpha << " need " << need;
  }
}

TEST(SharedBuffer, ALiveAlphaMovesAPausedGroupsResumePoint) {
  // alpha 1 on a 20000-byte pool. Port 0 pauses at 7000 bytes with 7000 free; with the
  // offset 3000 it would resume at 10000 free. A live alpha of 2 makes that 5000: the next
  // release from the pool, by another group, resumes it without its own release.
  pg_config pg{true, 1.0, 0, 0, 3000, 100000};
  resumes r;
  shared_buffer b = port0_paused_by_the_pool(pg, r);
  ASSERT_TRUE(b.paused(0, 0));
  b.release(2, 0, 1000);  // free 8000 < 10000: still paused
  EXPECT_TRUE(b.paused(0, 0));
  pg.alpha = 2.0;
  b.set_config(0, 0, pg);
  EXPECT_TRUE(b.paused(0, 0));  // applied at the next release
  b.release(2, 0, 1000);        // free 9000 >= 5000
  EXPECT_FALSE(b.paused(0, 0));
  EXPECT_EQ(r.seen, (std::vector<std::pair<int, int>>{{0, 0}}));
}

TEST(SharedBuffer, PoolGrowthResumesGroupsInTheOrderOfThePausedList) {
  // alpha 1 on a 40000-byte pool, a lossy port 4 holding 20000. Ports 0..3 in turn fill until
  // they pause with no headroom (shared = threshold = free): 10000, 5000, 3000 and 1000 bytes;
  // each resumes once the free pool reaches its bytes again.
  auto paused_four = [](resumes& r) {
    std::vector<pg_config> pgs(5, pg_config{true, 1.0, 0, 0, 0, 100000});
    pgs[4] = pg_config{false, 8.0, 0, 0, 0, 0};  // lossy: never pauses
    auto b = std::make_unique<shared_buffer>(5, 1, buffer_config{40000, true}, pgs);
    b->set_listener(&r);
    bool xoff = false;
    for (int i = 0; i < 20; ++i) b->admit(4, 0, 1000, xoff);
    for (int p = 0; p < 4; ++p)
      while (!b->paused(p, 0)) b->admit(p, 0, 1000, xoff);
    for (int p = 0; p < 4; ++p) EXPECT_EQ(b->usage(p, 0).headroom, 0u);
    EXPECT_EQ(b->shared_used(), 39000u);
    return b;
  };
  resumes all;
  auto b = paused_four(all);
  b->release(4, 0, 20000);  // free 21000: all resume
  // The list [0, 1, 2, 3]: 0 resumes and 3 takes its place, resumes, then 2, then 1.
  EXPECT_EQ(all.seen, (std::vector<std::pair<int, int>>{{0, 0}, {3, 0}, {2, 0}, {1, 0}}));
  resumes some;
  b = paused_four(some);
  b->release(4, 0, 2000);  // free 3000: ports 2 and 3 only
  EXPECT_EQ(some.seen, (std::vector<std::pair<int, int>>{{2, 0}, {3, 0}}));
  b->release(4, 0, 4000);  // free 7000: port 1 (5000) only
  EXPECT_EQ(some.seen.back(), (std::pair<int, int>{1, 0}));
  EXPECT_TRUE(b->paused(0, 0));
}

namespace {
// The MMU as it was before resume points: a release from the pool computes the threshold of
// every paused group without headroom, in the order of the paused list (cell 1, dynamic).
struct every_threshold_buffer {
  uint64_t pool, used = 0;
  std::vector<pg_config> config;
  std::vector<pg_usage> usage;
  std::vector<char> paused;
  std::vector<uint32_t> paused_list;
  std::vector<std::size_t> seen;
  uint64_t threshold(std::size_t i) const {
    return static_cast<uint64_t>(config[i].alpha * static_cast<double>(pool - used));
  }
  bool admit(std::size_t i, uint64_t bytes) {
    pg_usage& u = usage[i];
    const pg_config& c = config[i];
    bool xoff = false;
    if (u.reserved + bytes <= c.reserve) {
      u.reserved += bytes;
    } else if (u.headroom == 0 && u.shared + bytes <= threshold(i) && used + bytes <= pool) {
      u.shared += bytes;
      used += bytes;
    } else if (c.lossless && u.headroom + bytes <= c.headroom) {
      u.headroom += bytes;
    } else {
      if (c.lossless && !paused[i]) pause(i), xoff = true;
      return xoff;
    }
    if (c.lossless && !paused[i] && (u.headroom > 0 || (u.shared > 0 && u.shared >= threshold(i))))
      pause(i), xoff = true;
    return xoff;
  }
  void pause(std::size_t i) {
    paused[i] = 1;
    paused_list.push_back(static_cast<uint32_t>(i));
  }
  bool resume(std::size_t i) {
    const pg_usage& u = usage[i];
    if (!paused[i] || u.headroom != 0) return false;
    if (u.shared + config[i].xon_offset > threshold(i) && u.shared != 0) return false;
    paused[i] = 0;
    auto it = std::find(paused_list.begin(), paused_list.end(), static_cast<uint32_t>(i));
    *it = paused_list.back();
    paused_list.pop_back();
    return true;
  }
  void release(std::size_t i, uint64_t bytes) {
    pg_usage& u = usage[i];
    const uint64_t from_headroom = std::min(u.headroom, bytes);
    u.headroom -= from_headroom;
    bytes -= from_headroom;
    const uint64_t from_shared = std::min(u.shared, bytes);
    u.shared -= from_shared;
    used -= from_shared;
    u.reserved -= std::min(u.reserved, bytes - from_shared);
    if (from_shared > 0) {
      for (std::size_t k = 0; k < paused_list.size();) {
        const uint32_t g = paused_list[k];
        if (resume(g)) {
          seen.push_back(g);  // resume removed it from position k
        } else {
          ++k;
        }
      }
    } else if (resume(i)) {
      seen.push_back(i);
    }
  }
};
}  // namespace

namespace {
// Random admissions, releases, live alpha and offset writes and refresh re-checks on two
// buffers: resume points against every threshold computed. Same XONs in the same order. Under
// the built-in dynamic rule (computed inline) and the same rule as a policy of its own (through
// its virtual calls). powers_of_two: every alpha 2^-k, 0 <= k <= 10 (the built-in rule's resume
// point by a shift), on pools from a few frames to 2^40 bytes.
void check_resume_points_against_every_threshold(bool powers_of_two) {
  struct order : resume_listener {
    std::vector<std::size_t> seen;
    int priorities = 2;
    void resumed(int port, int priority) override {
      seen.push_back(static_cast<std::size_t>(port * priorities + priority));
    }
  };
  const searched_dynamic searched;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const threshold_policy* policy = seed % 2 ? nullptr : &searched;
    const int ports = 4, priorities = 2, groups = ports * priorities;
    auto random_config = [&rng, powers_of_two](std::size_t i) {
      const double alphas[] = {0.125, 0.25, 0.5, 1.0, 2.0, 1.0 / 3};
      // Half the time any alpha between 1/16 and 4 (the built-in rule's products and quotients
      // then round in every way).
      const double alpha = powers_of_two ? std::ldexp(1.0, -static_cast<int>(rng() % 11))
                           : rng() % 2   ? alphas[rng() % 6]
                                         : std::ldexp(1.0, -4) * std::exp2(6.0 * (rng() % 100000) / 1e5);
      pg_config c{
          i % 5 != 4, alpha, uint64_t{rng() % 2 ? 0u : 1000u}, 0, (rng() % 4) * 1000, uint64_t{rng() % 3 ? 6000u : 0u}};
      return c;
    };
    std::vector<pg_config> pgs;
    for (std::size_t i = 0; i < groups; ++i) pgs.push_back(random_config(i));
    // With powers of two, now and then a pool of a few frames or one of up to 2^40 bytes (the
    // resume point's shift past the pool, and large shifts).
    const uint64_t pool = !powers_of_two || seed % 3 == 0 ? 20000 + rng() % 20000
                          : seed % 3 == 1                 ? 3000 + rng() % 3000
                                                          : rng() % (uint64_t{1} << 40);
    shared_buffer b(ports, priorities, buffer_config{pool, true, 1, policy}, pgs);
    order listened;
    b.set_listener(&listened);
    every_threshold_buffer ref{pool, 0, pgs, std::vector<pg_usage>(groups), std::vector<char>(groups, 0), {}, {}};
    std::vector<std::deque<uint64_t>> held(groups);  // each group's admitted frames, oldest first
    uint64_t peak_shared = 0, peak_in_use = 0;
    std::vector<uint64_t> peak_total(groups), peak_headroom(groups);
    for (int step = 0; step < 20000; ++step) {
      const std::size_t i = rng() % groups;
      const int port = static_cast<int>(i) / priorities, priority = static_cast<int>(i) % priorities;
      const unsigned op = rng() % 100;
      if (op < 50) {
        const uint64_t bytes = 64 + rng() % 1500;
        bool xoff = false;
        const pg_usage before = b.usage(port, priority);
        const bool admitted = b.admit(port, priority, bytes, xoff) == admit_verdict::admitted;
        EXPECT_EQ(ref.admit(i, bytes), xoff);
        if (admitted) held[i].push_back(bytes);
        EXPECT_EQ(admitted, b.usage(port, priority).total() != before.total());
      } else if (op < 94) {
        if (held[i].empty()) continue;
        b.release(port, priority, held[i].front());
        ref.release(i, held[i].front());
        held[i].pop_front();
      } else if (op < 97) {
        const pg_config c = random_config(i);
        b.set_config(port, priority, c);
        ref.config[i] = c;
      } else {
        EXPECT_EQ(b.try_resume(port, priority), ref.resume(i));
      }
      ASSERT_EQ(listened.seen, ref.seen) << "seed " << seed << " step " << step;
      ASSERT_EQ(b.threshold(port, priority), ref.threshold(i)) << "seed " << seed << " step " << step;
      // The high-water marks: the largest counts seen after any step.
      peak_shared = std::max(peak_shared, b.shared_used());
      peak_in_use = std::max(peak_in_use, b.in_use());
      const pg_usage& now = b.usage(port, priority);
      peak_total[i] = std::max(peak_total[i], now.total());
      peak_headroom[i] = std::max(peak_headroom[i], now.headroom);
      ASSERT_EQ(b.peak_shared(), peak_shared) << "seed " << seed << " step " << step;
      ASSERT_EQ(b.peak_in_use(), peak_in_use) << "seed " << seed << " step " << step;
      ASSERT_EQ(now.peak_total, peak_total[i]) << "seed " << seed << " step " << step;
      ASSERT_EQ(now.peak_headroom, peak_headroom[i]) << "seed " << seed << " step " << step;
      for (std::size_t g = 0; g < groups; ++g)
        ASSERT_EQ(b.paused(static_cast<int>(g) / priorities, static_cast<int>(g) % priorities), ref.paused[g] != 0)
            << "seed " << seed << " step " << step;
    }
    // The pool-growth re-check was exercised (a huge pool with alphas down to 1/1024 pauses little).
    if (pool < (uint64_t{1} << 20)) {
      EXPECT_GT(listened.seen.size(), 100u) << "seed " << seed;
    }
  }
}
}  // namespace

TEST(SharedBuffer, ResumePointsResumeWhatEveryThresholdWouldInTheSameOrder) {
  check_resume_points_against_every_threshold(false);
}

TEST(SharedBuffer, ResumePointsOfAlphasTwoToTheMinusKAreTheShiftedNeed) {
  check_resume_points_against_every_threshold(true);
}
