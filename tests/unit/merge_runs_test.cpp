// merge_runs (the event queue's sort of a large bucket) against std::sort: sequences of random
// ascending runs of distinct keys (the queue's keys differ), runs that interleave or follow one
// another, one run, single elements, and plain random order. The remainder handed to `rest` must
// be exactly the tail of the last run left, in order.
#include "models/core/merge_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace {

struct cursor {
  int key;
  std::size_t at, end;  // the run is input[at, end)
};

// Merges the runs of `input` (bounds between them) as the queue does: emitted elements, then the
// rest of the last run.
std::vector<int> merged(const std::vector<int>& input, const std::vector<std::size_t>& bounds) {
  std::vector<cursor> runs;
  for (std::size_t r = 0; r + 1 < bounds.size(); ++r)
    if (bounds[r] < bounds[r + 1]) runs.push_back({input[bounds[r]], bounds[r], bounds[r + 1]});
  std::vector<int> out;
  sluice::merge_runs(
      runs, [](const cursor& a, const cursor& b) { return a.key < b.key; },
      [&](cursor& c) {
        if (++c.at == c.end) return false;
        c.key = input[c.at];
        return true;
      },
      [&](const cursor& c) { out.push_back(input[c.at]); },
      [&](const cursor& c) {
        out.insert(out.end(), input.begin() + static_cast<long>(c.at), input.begin() + static_cast<long>(c.end));
      });
  return out;
}

// n distinct keys from [0, keys) cut into `runs` ascending pieces at random places; with
// `blocks`, each piece takes a stretch of the key range (runs that follow one another, as a
// synchronized bucket's long last run follows the rest).
std::vector<int> runs_of(std::mt19937& rng, std::size_t n, std::size_t runs, bool blocks,
                         std::vector<std::size_t>& bounds) {
  std::vector<int> k(n);
  std::iota(k.begin(), k.end(), 0);
  for (int& x : k) x *= 3;
  if (!blocks) std::shuffle(k.begin(), k.end(), rng);
  bounds = {0, n};
  std::uniform_int_distribution<std::size_t> at(0, n);
  for (std::size_t r = 1; r < runs; ++r) bounds.push_back(at(rng));
  std::sort(bounds.begin(), bounds.end());
  for (std::size_t c = 0; c + 1 < bounds.size(); ++c)
    std::sort(k.begin() + static_cast<long>(bounds[c]), k.begin() + static_cast<long>(bounds[c + 1]));
  if (blocks) {  // the pieces in random order, each still a stretch of keys
    std::vector<std::vector<int>> pieces;
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c)
      pieces.emplace_back(k.begin() + static_cast<long>(bounds[c]), k.begin() + static_cast<long>(bounds[c + 1]));
    std::shuffle(pieces.begin(), pieces.end(), rng);
    k.clear();
    bounds = {0};
    for (const auto& p : pieces) {
      k.insert(k.end(), p.begin(), p.end());
      bounds.push_back(k.size());
    }
  }
  return k;
}

}  // namespace

TEST(MergeRuns, SortsAsSortDoesWhateverTheRuns) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 400)(rng);
    const std::size_t runs = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    std::vector<std::size_t> bounds;
    const std::vector<int> v = runs_of(rng, n, runs, trial % 3 == 0, bounds);
    std::vector<int> expected = v;
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(merged(v, bounds), expected) << "trial " << trial << ", n " << n << ", runs " << runs;
  }
}

TEST(MergeRuns, RandomOrderAndTheEdges) {
  std::mt19937 rng(11);
  for (std::size_t n : {0, 1, 2, 3, 17, 2660}) {
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), 0);
    std::shuffle(v.begin(), v.end(), rng);
    std::vector<std::size_t> singles(n + 1);  // every element a run of its own
    std::iota(singles.begin(), singles.end(), 0);
    std::vector<int> expected = v;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(merged(v, singles), expected) << n;
    EXPECT_EQ(merged(expected, {0, n}), expected) << n;  // one run: all of it the rest
  }
}
