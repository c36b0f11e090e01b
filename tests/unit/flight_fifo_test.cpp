// The FIFO of a link direction's frames in flight (models/link/flight_fifo.h): the same order
// as a std::deque whatever the pushes and pops, across growth and across the wrap of its
// free-running indices (8-bit indices here, so that they wrap thousands of times).
#include "models/link/flight_fifo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>

using sluice::flight_fifo;

namespace {

template <typename Index>
void same_as_a_deque(uint64_t seed, int max_in_flight) {
  flight_fifo<uint64_t, Index> fifo;
  std::deque<uint64_t> plain;
  std::mt19937_64 rng(seed);
  uint64_t next = 0;
  for (int step = 0; step < 200'000; ++step) {
    // Bursts: pushes win while a stretch lasts, pops in the next.
    const bool push = plain.empty() || (static_cast<int>(plain.size()) < max_in_flight &&
                                        (step / 97 % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0));
    if (push) {
      fifo.push_back(next);
      plain.push_back(next++);
    } else {
      ASSERT_EQ(fifo.front(), plain.front()) << step;
      ASSERT_EQ(fifo.pop_front(), plain.front()) << step;
      plain.pop_front();
    }
    ASSERT_EQ(fifo.size(), plain.size()) << step;
    ASSERT_EQ(fifo.empty(), plain.empty()) << step;
    if (!plain.empty()) {
      const auto i = static_cast<Index>(rng() % plain.size());
      ASSERT_EQ(fifo[i], plain[i]) << step;
    }
    // A power of two, at most twice what it held at its high-water mark.
    ASSERT_EQ(fifo.capacity() & (fifo.capacity() - 1), 0u);
  }
}

}  // namespace

TEST(FlightFifo, KeepsADequesOrderAcrossGrowthAndTheIndicesWrap) {
  same_as_a_deque<uint8_t>(1, 100);  // 8-bit indices wrap every 256 frames
  same_as_a_deque<uint32_t>(2, 1000);
}

TEST(FlightFifo, HoldsNoSlotsUntilItsFirstFrameThenAPowerOfTwo) {
  flight_fifo<int> fifo;
  EXPECT_EQ(fifo.capacity(), 0u);
  EXPECT_TRUE(fifo.empty());
  for (int i = 0; i < 9; ++i) fifo.push_back(i);
  EXPECT_EQ(fifo.capacity(), 16u);
  EXPECT_EQ(fifo.size(), 9u);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(fifo.pop_front(), i);
  EXPECT_TRUE(fifo.empty());
}

TEST(FlightFifo, RefusesMoreFramesThanItsIndicesCount) {
  flight_fifo<int, uint8_t> fifo;
  for (int i = 0; i < 128; ++i) fifo.push_back(i);
  EXPECT_THROW(fifo.push_back(128), std::length_error);
}
