// The FIFO of a link direction's frames in flight (models/link/flight_fifo.h): the same order
// as a std::deque whatever the pushes and pops, across growth and across the wrap of its
// free-running indices (8-bit indices here, so that they wrap thousands of times), with its
// writer and its reader each knowing only its own half.
#include "models/link/flight_fifo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

using sluice::flight_fifo;

namespace {

template <typename Index>
void same_as_a_deque(uint64_t seed, int max_in_flight) {
  using fifo = flight_fifo<int, Index>;
  typename fifo::writer tail;
  typename fifo::reader head;
  std::vector<int> items(1000);
  std::deque<std::pair<uint64_t, int*>> plain;
  std::mt19937_64 rng(seed);
  uint64_t next = 0;
  for (int step = 0; step < 200'000; ++step) {
    // Bursts: pushes win while a stretch lasts, pops in the next.
    const bool push = plain.empty() || (static_cast<int>(plain.size()) < max_in_flight &&
                                        (step / 97 % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0));
    if (push) {
      int* item = &items[next % items.size()];
      tail.make_room(head);
      tail.push_in_room(next, item);
      plain.emplace_back(next++, item);
    } else {
      ASSERT_EQ(head.front().at_ps, plain.front().first) << step;
      const auto taken = head.pop_front();
      ASSERT_EQ(taken.at_ps, plain.front().first) << step;
      ASSERT_EQ(taken.item, plain.front().second) << step;
      plain.pop_front();
    }
    ASSERT_EQ(fifo::reader::size(tail, head), plain.size()) << step;
    ASSERT_EQ(head.empty(), plain.empty()) << step;
    // A power of two, at most twice what it held at its high-water mark.
    ASSERT_EQ(head.capacity() & (head.capacity() - 1), 0u);
  }
}

}  // namespace

TEST(FlightFifo, KeepsADequesOrderAcrossGrowthAndTheIndicesWrap) {
  same_as_a_deque<uint8_t>(1, 100);  // 8-bit indices wrap every 256 frames
  same_as_a_deque<uint32_t>(2, 1000);
}

TEST(FlightFifo, HoldsNoSlotsUntilItsFirstFrameThenAPowerOfTwo) {
  flight_fifo<int>::writer tail;
  flight_fifo<int>::reader head;
  int items[9] = {};
  EXPECT_EQ(head.capacity(), 0u);
  EXPECT_TRUE(head.empty());
  for (int i = 0; i < 9; ++i) {
    tail.make_room(head);
    tail.push_in_room(i, &items[i]);
  }
  EXPECT_EQ(head.capacity(), 16u);
  EXPECT_EQ((flight_fifo<int>::reader::size(tail, head)), 9u);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(head.pop_front().item, &items[i]);
  EXPECT_TRUE(head.empty());
}

// The writer learns that the ring is full from the slot it would fill, not from the reader's
// index: a slot the reader has not taken is never overwritten, and one it has is reused.
TEST(FlightFifo, TheWriterFillsOnlySlotsTheReaderHasTaken) {
  flight_fifo<int>::writer tail;
  flight_fifo<int>::reader head;
  int items[17] = {};
  for (int i = 0; i < 8; ++i) {
    tail.make_room(head);
    tail.push_in_room(i, &items[i]);
  }
  EXPECT_EQ(head.capacity(), 8u);
  EXPECT_EQ(head.pop_front().item, &items[0]);
  tail.make_room(head);  // the slot of the frame taken: no growth
  tail.push_in_room(8, &items[8]);
  EXPECT_EQ(head.capacity(), 8u);
  tail.make_room(head);  // full: grows, in order
  tail.push_in_room(9, &items[9]);
  EXPECT_EQ(head.capacity(), 16u);
  for (int i = 1; i < 10; ++i) EXPECT_EQ(head.pop_front().item, &items[i]);
  EXPECT_TRUE(head.empty());
}

TEST(FlightFifo, RefusesMoreFramesThanItsIndicesCount) {
  flight_fifo<int, uint8_t>::writer tail;
  flight_fifo<int, uint8_t>::reader head;
  int item = 0;
  for (int i = 0; i < 128; ++i) {
    tail.make_room(head);
    tail.push_in_room(i, &item);
  }
  EXPECT_THROW(tail.make_room(head), std::length_error);
}
