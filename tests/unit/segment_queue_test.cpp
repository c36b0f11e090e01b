// The egress queues' container: a FIFO in segments from a shared pool (issue 23, sixteenth
// round). Order across segment ends, elements that stay where they were written, segments taken
// as a queue grows and given back as its head leaves them, a drained queue that gives its segment
// back and takes the same one again, and the pool's LIFO reuse.
#include "models/core/segment_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace segment_pool = sluice::segment_pool;
using sluice::segment_queue;

namespace {
struct item {  // a descriptor's size: two a cache line
  uint64_t value = 0;
  uint64_t pad[3] = {};
};
using queue = segment_queue<item>;
constexpr std::size_t per = queue::per_segment;
item of(uint64_t v) { return item{v, {}}; }
}  // namespace

TEST(SegmentQueue, IsAsSmallAsARingWithNarrowIndicesAndHoldsASegmentLessOneSlot) {
  EXPECT_EQ(sizeof(queue), 24u);
  EXPECT_EQ(per, segment_pool::bytes / sizeof(item) - 1);
}

TEST(SegmentQueue, KeepsFifoOrderAcrossSegmentEndsAgainstADeque) {
  std::mt19937_64 rng(23);
  queue q;
  std::deque<uint64_t> model;
  uint64_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    // Bursts in and out, so the queue climbs over many segments, drains and climbs again.
    const bool in = model.empty() || (step / 2000 % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0);
    if (in) {
      q.push_back(of(next));
      model.push_back(next++);
    } else {
      ASSERT_EQ(q.front().value, model.front());
      ASSERT_EQ(q.pop_front().value, model.front());
      model.pop_front();
    }
    ASSERT_EQ(q.size(), model.size());
    ASSERT_EQ(q.empty(), model.empty());
    if (step % 97 == 0 && !model.empty()) {  // the walk by next() sees every element in order
      const item* e = &q.front();
      for (std::size_t i = 0; i < model.size(); ++i, e = i < model.size() ? q.next(e) : e)
        ASSERT_EQ(e->value, model[i]);
      EXPECT_TRUE(q.any_of([&](const item& x) { return x.value == model.back(); }));
      EXPECT_FALSE(q.any_of([&](const item& x) { return x.value == next; }));
    }
  }
}

TEST(SegmentQueue, AnElementStaysInItsSlotWhileTheQueueGrows) {
  queue q;
  q.push_back(of(7));
  const item* first = &q.front();
  for (uint64_t i = 0; i < 10 * per; ++i) q.emplace_back() = of(i);
  EXPECT_EQ(&q.front(), first);
  EXPECT_EQ(q.front().value, 7u);
  const item* e = first;
  for (uint64_t i = 0; i < 10 * per; ++i) {
    e = q.next(e);
    ASSERT_EQ(e->value, i);
  }
}

TEST(SegmentQueue, TakesSegmentsAsItGrowsAndGivesThemBackAsItsHeadLeavesThem) {
  queue keeps_the_pool;  // the pool keeps its chunks while a queue is left
  const std::size_t before = segment_pool::held();
  {
    queue q;
    EXPECT_EQ(segment_pool::held(), before);  // an empty queue holds no segment
    const std::size_t n = 5 * per + 3;
    for (std::size_t i = 1; i <= n; ++i) {
      q.push_back(of(i));
      ASSERT_EQ(segment_pool::held() - before, (i + per - 1) / per) << i;
    }
    for (std::size_t left = n; left > 0; --left) {
      q.drop_front();
      // The head's segment and the ones after it; none once drained.
      const std::size_t gone = n - (left - 1);
      ASSERT_EQ(segment_pool::held() - before, left > 1 ? 6 - gone / per : 0) << left;
    }
    q.push_back(of(1));
    EXPECT_EQ(segment_pool::held() - before, 1u);
  }
  EXPECT_EQ(segment_pool::held(), before);  // and its segment goes back with it
}

TEST(SegmentQueue, ADrainedQueueGivesItsSegmentBackAndTakesTheSameOneAgain) {
  queue keeps_the_pool;
  const std::size_t before = segment_pool::held();
  queue q;
  q.push_back(of(1));
  const item* first = &q.front();
  for (int round = 0; round < 3 * static_cast<int>(per); ++round) {  // one element at a time: one slot
    q.drop_front();
    ASSERT_TRUE(q.empty());
    ASSERT_EQ(segment_pool::held(), before);
    q.push_back(of(round));
    ASSERT_EQ(&q.front(), first);
    ASSERT_EQ(q.front().value, static_cast<uint64_t>(round));
  }
  // Drained right at a segment's end (the tail had not yet linked a next one).
  q.drop_front();
  for (std::size_t i = 0; i < per; ++i) q.push_back(of(i));
  EXPECT_EQ(segment_pool::held() - before, 1u);
  for (std::size_t i = 0; i < per; ++i) q.drop_front();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(segment_pool::held(), before);
  q.push_back(of(5));
  EXPECT_EQ(&q.front(), first);
  EXPECT_EQ(q.front().value, 5u);
}

TEST(SegmentQueue, ASegmentAHeadGivesBackIsTheNextATailTakes) {
  queue a, b;
  for (std::size_t i = 0; i < 2 * per; ++i) a.push_back(of(i));  // two full segments
  const item* freed = &a.front();
  for (std::size_t i = 0; i < per; ++i) a.drop_front();  // the head leaves the first
  b.push_back(of(9));
  EXPECT_EQ(&b.front(), freed);  // its first slot: the segment a's head just left
}

TEST(SegmentPool, HandsOutAlignedSegmentsLastGivenFirstTakenAndFreesItsChunksWithItsLastUser) {
  segment_pool::join();
  const std::size_t before = segment_pool::held();
  std::vector<void*> taken;
  for (int i = 0; i < 1000; ++i) {  // several chunks
    taken.push_back(segment_pool::take());
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(taken.back()) % segment_pool::bytes, 0u);
  }
  EXPECT_EQ(segment_pool::held() - before, 1000u);
  segment_pool::give(taken[3]);
  segment_pool::give(taken[7]);
  EXPECT_EQ(segment_pool::take(), taken[7]);
  EXPECT_EQ(segment_pool::take(), taken[3]);
  for (void* s : taken) segment_pool::give(s);
  EXPECT_EQ(segment_pool::held(), before);
  segment_pool::leave();
  if (before == 0) {  // no other user: every chunk freed
    EXPECT_EQ(segment_pool::held(), 0u);
    EXPECT_EQ(segment_pool::free_list, nullptr);
  }
}
