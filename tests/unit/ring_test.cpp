// The ring buffer behind the link's, the NIC's and the models' small queues: FIFO order across
// growth and wrap, growth by an eighth.
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

// An owner may read the front in place before dropping it (drop_front): FIFO order as pop_front,
// across growth and wrap. A ring is an array and its capacity (32 bytes; a std::vector made it 40).
TEST(Ring, ReadsTheFrontInPlaceAndDropsIt) {
  EXPECT_LE(sizeof(ring<int>), 32u);
  ring<int> r;
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 7 * round + 3; ++i) r.push_back(next_in++);
    for (int i = 0; i < 5 * round + 1; ++i) {
      EXPECT_EQ(r.front(), next_out++);
      r.drop_front();
    }
  }
  while (!r.empty()) EXPECT_EQ(r.pop_front(), next_out++);
  EXPECT_EQ(next_out, next_in);
}

// Random pushes and pops against std::deque, for a ring whose slots are copied as bytes
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
