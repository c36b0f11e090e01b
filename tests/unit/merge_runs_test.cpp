// merge_runs (the event queue's sort of a large bucket) against std::stable_sort: sequences of
// random runs, ties included, one run, empty, and plain random order.
#include "models/core/merge_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace {

using item = std::pair<int, int>;  // (key, place in the input): stability shows
bool by_key(const item& a, const item& b) { return a.first < b.first; }

std::vector<item> runs_of(std::mt19937& rng, std::size_t n, std::size_t runs, int keys) {
  std::vector<int> k(n);
  std::uniform_int_distribution<int> key(0, keys - 1);
  for (int& x : k) x = key(rng);
  // Cut into `runs` pieces at random places and sort each piece: a sequence of ascending runs.
  std::vector<std::size_t> cuts{0, n};
  std::uniform_int_distribution<std::size_t> at(0, n);
  for (std::size_t r = 1; r < runs; ++r) cuts.push_back(at(rng));
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) std::sort(k.begin() + cuts[c], k.begin() + cuts[c + 1]);
  std::vector<item> v;
  for (std::size_t i = 0; i < n; ++i) v.emplace_back(k[i], static_cast<int>(i));
  return v;
}

}  // namespace

TEST(MergeRuns, SortsAsStableSortDoesWhateverTheRuns) {
  std::mt19937 rng(7);
  std::vector<item> buffer;
  std::vector<std::size_t> bounds;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 400)(rng);
    const std::size_t runs = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    const int keys = std::uniform_int_distribution<int>(1, 1000)(rng);
    std::vector<item> v = runs_of(rng, n, runs, keys);
    std::vector<item> expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    sluice::merge_runs(v, buffer, bounds, by_key);
    ASSERT_EQ(v, expected) << "trial " << trial << ", n " << n << ", runs " << runs;
  }
}

TEST(MergeRuns, RandomOrderAndTheEdges) {
  std::mt19937 rng(11);
  std::vector<item> buffer;
  std::vector<std::size_t> bounds;
  for (std::size_t n : {0, 1, 2, 3, 17, 2660}) {
    std::vector<item> v;
    for (std::size_t i = 0; i < n; ++i) v.emplace_back(static_cast<int>(rng() % 50), static_cast<int>(i));
    std::vector<item> expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    sluice::merge_runs(v, buffer, bounds, by_key);
    EXPECT_EQ(v, expected) << n;
    sluice::merge_runs(v, buffer, bounds, by_key);  // already in order: unchanged
    EXPECT_EQ(v, expected) << n;
  }
}
