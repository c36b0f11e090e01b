// The ring buffer behind the switch, link and NIC queues: FIFO order across growth, and a
// drained ring giving slots back (issue 23: memory flat over simulated time).
#include "models/core/ring.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <string>

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

// Grown by an eighth at a time, at least 16 slots: a ring never holds more than 1.125x its frames
// in slots (beyond its first 8, and 16 more), whatever its high-water mark (a switch buffer's
// descriptors are most of a congested fabric's memory).
TEST(Ring, GrowsByAnEighthAtATime) {
  ring<int> r;
  for (int i = 1; i <= 5000; ++i) {
    r.push_back(i);
    ASSERT_LE(r.capacity(), std::max<std::size_t>(8, r.size() + std::max<std::size_t>(r.size() / 8, 16))) << r.size();
    ASSERT_EQ(r[r.size() - 1], i);
    ASSERT_EQ(r.front(), 1);
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
  EXPECT_LE(full, 1125u);  // grown by an eighth at a time: at most 1.125x what it holds
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

// Random pushes, pops and drains against std::deque, for a ring whose slots are copied as bytes
// (made unwritten, grown by two copies of its wrapped runs) and one whose slots are moved one by
// one (std::string): both hold the same elements in the same order at every step.
namespace {
template <typename T, typename Make>
void follows_a_deque(Make make) {
  ring<T> r;
  std::deque<T> d;
  std::mt19937 rng(12);
  for (int i = 0; i < 200000; ++i) {
    const unsigned pick = rng() % 8;
    if (pick < 5) {
      r.push_back(make(i));
      d.push_back(make(i));
    } else if (!d.empty()) {
      ASSERT_EQ(r.pop_front(), d.front()) << i;
      d.pop_front();
    } else {
      r.shrink_drained();
    }
    ASSERT_EQ(r.size(), d.size());
    if (i % 997 == 0) {
      for (std::size_t k = 0; k < d.size(); ++k) ASSERT_EQ(r[k], d[k]) << i << ' ' << k;
    }
  }
}
struct plain_record {
  uint64_t a;
  uint32_t b, c;
  bool operator==(const plain_record& o) const { return a == o.a && b == o.b && c == o.c; }
};
}  // namespace

TEST(Ring, HoldsWhatADequeHoldsThroughGrowthAndWrap) {
  follows_a_deque<plain_record>([](int i) {
    return plain_record{uint64_t{1} << 40 | static_cast<uint64_t>(i), static_cast<uint32_t>(i) * 3, 7};
  });
  follows_a_deque<std::string>([](int i) { return std::to_string(i) + std::string(i % 40, 'x'); });
}
