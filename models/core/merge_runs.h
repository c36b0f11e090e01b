// Sorts a sequence made of a few ascending runs by merging neighbouring runs, pass by pass:
// n log(runs) comparisons, against std::sort's n log n. The event queue's large buckets are
// such sequences: a synchronized fabric fills a bucket in the order its causes ran, a few
// thousand wake-ups in a few dozen runs (a 1 024-host leaf-spine: 2 660 in about 22).
#pragma once
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace sluice {

// Sorts v by `before` (a strict weak order; stable). `buffer` and `bounds` are working storage
// the caller keeps, so that a sort allocates nothing once they have grown; v may come back
// holding buffer's storage (they are swapped).
template <typename T, typename Before>
void merge_runs(std::vector<T>& v, std::vector<T>& buffer, std::vector<std::size_t>& bounds, Before before) {
  bounds.clear();
  bounds.push_back(0);
  for (std::size_t i = 1; i < v.size(); ++i)
    if (before(v[i], v[i - 1])) bounds.push_back(i);
  bounds.push_back(v.size());
  if (bounds.size() <= 2) return;  // one run: in order already
  buffer.resize(v.size());
  std::vector<T>* from = &v;
  std::vector<T>* to = &buffer;
  while (bounds.size() > 2) {
    const std::size_t runs = bounds.size() - 1;
    std::size_t kept = 0;  // bounds of the merged runs, written over the ones read
    for (std::size_t r = 0; r < runs; r += 2) {
      const std::size_t lo = bounds[r], mid = bounds[r + 1], hi = r + 2 <= runs ? bounds[r + 2] : mid;
      std::merge(from->begin() + lo, from->begin() + mid, from->begin() + mid, from->begin() + hi, to->begin() + lo,
                 before);
      bounds[kept++] = lo;
    }
    bounds[kept++] = v.size();
    bounds.resize(kept);
    std::swap(from, to);
  }
  if (from != &v) v.swap(buffer);
}

}  // namespace sluice
