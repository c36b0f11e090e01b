// The ring buffer behind the switch, link and NIC queues: FIFO order across growth, and a
// drained ring giving slots back (issue 23: memory flat over simulated time).
#include "models/core/ring.h"

#include <gtest/gtest.h>

using sluice::ring;

TEST(Ring, KeepsFifoOrderAcrossGrowthAndWrap) {
  ring<int> r;
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 7 * round + 3; ++i) r.push_back(next_in++);
    for (int i = 0; i < 5 * round + 1; ++i) EXPECT_EQ(r.pop_front(), next_out++);
  }
  while (!r.empty()) EXPECT_EQ(r.pop_front(), next_out++);
  EXPECT_EQ(next_out, next_in);
}

// Grown by a quarter at a time: a ring never holds more than 1.25x its frames in slots (beyond
// its first 8), whatever its high-water mark (a switch buffer's descriptors are most of a
// congested fabric's memory).
TEST(Ring, GrowsByAQuarterAtATime) {
  ring<int> r;
  for (int i = 1; i <= 5000; ++i) {
    r.push_back(i);
    ASSERT_LE(r.capacity(), std::max<std::size_t>(8, r.size() + r.size() / 4)) << r.size();
  }
}

// A queue that held 1 000 frames and drained halves once per drain down to spare_slots, so a
// queue that refills each burst reallocates at most once per burst, and one that stays quiet
// sheds its slots.
TEST(Ring, ADrainedRingHalvesPerDrainDownToItsSpareSlots) {
  ring<int> r;
  for (int i = 0; i < 1000; ++i) r.push_back(i);
  const std::size_t full = r.capacity();
  EXPECT_GE(full, 1000u);
  EXPECT_LE(full, 1250u);  // grown by a quarter at a time: at most 1.25x what it holds
  r.shrink_drained();      // not empty: keeps its slots
  EXPECT_EQ(r.capacity(), full);
  for (int i = 0; i < 1000; ++i) r.pop_front();
  std::size_t expected = full;
  for (int drain = 0; drain < 10; ++drain) {
    r.shrink_drained();
    expected = std::max(expected / 2, ring<int>::spare_slots);
    EXPECT_EQ(r.capacity(), expected) << drain;
    r.push_back(drain);  // one frame through the queue: it drains again
    EXPECT_EQ(r.pop_front(), drain);
  }
  EXPECT_EQ(r.capacity(), ring<int>::spare_slots);
}

// An egress queue packs a frame's descriptor straight into its slot (emplace_back) and unpacks
// it from the front before dropping it (drop_front): FIFO order as push_back and pop_front, across
// growth and wrap. A ring is an array and its capacity (32 bytes; a std::vector made it 40).
TEST(Ring, WritesInPlaceAndReadsTheFrontInPlace) {
  EXPECT_LE(sizeof(ring<int>), 32u);
  ring<int> r;
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 7 * round + 3; ++i) r.emplace_back() = next_in++;
    for (int i = 0; i < 5 * round + 1; ++i) {
      EXPECT_EQ(r.front(), next_out++);
      r.drop_front();
    }
  }
  while (!r.empty()) EXPECT_EQ(r.pop_front(), next_out++);
  EXPECT_EQ(next_out, next_in);
}
