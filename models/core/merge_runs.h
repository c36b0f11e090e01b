// Merges a few ascending runs into one ascending sequence, through a heap of the runs' fronts:
// n log(runs) comparisons, each element read and placed once, and the last run left taken whole
// without reading it. The event queue's large buckets are such sequences: a synchronized fabric
// fills a bucket in the order its causes ran, a few thousand wake-ups in a few dozen runs (a
// 1 024-host leaf-spine: 2 700 in about 30, most of them short and one long run that ends the
// bucket, past all the others).
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace sluice {

// `runs` holds one cursor per non-empty run, each at its run's first element, with whatever
// `before` compares (a strict order in which no two elements of different runs are equal; the
// queue's keys differ). Calls emit(cursor) for each element in ascending order, moving a cursor
// on with advance(cursor) (false once its run is done), until one run is left: then
// rest(cursor), whose run from the cursor on is in order already, is the whole of the remainder.
// `runs` is working storage (a heap; its order on return is unspecified).
template <typename Cursor, typename Before, typename Advance, typename Emit, typename Rest>
void merge_runs(std::vector<Cursor>& runs, Before before, Advance advance, Emit emit, Rest rest) {
  if (runs.empty()) return;
  const auto later = [&](const Cursor& a, const Cursor& b) { return before(b, a); };
  std::make_heap(runs.begin(), runs.end(), later);
  while (runs.size() > 1) {
    // The front's run goes on while it stays before the runner-up (the lesser of the front's
    // children): one comparison an element through a stretch of one run, which the queue's
    // interleaved runs come in.
    const std::size_t up = runs.size() > 2 && before(runs[2], runs[1]) ? 2 : 1;
    bool done = false;
    do {
      emit(runs.front());
      done = !advance(runs.front());
    } while (!done && before(runs.front(), runs[up]));
    if (done) {
      std::pop_heap(runs.begin(), runs.end(), later);
      runs.pop_back();
      continue;
    }
    // The runner-up comes first now: it takes the front's place, and the front sifts down from there.
    const std::size_t n = runs.size();
    const Cursor moving = runs.front();
    runs.front() = runs[up];
    std::size_t i = up;
    for (std::size_t c = 2 * i + 1; c < n; c = 2 * i + 1) {
      if (c + 1 < n && before(runs[c + 1], runs[c])) ++c;
      if (!before(runs[c], moving)) break;
      runs[i] = runs[c];
      i = c;
    }
    runs[i] = moving;
  }
  rest(runs.front());
}

}  // namespace sluice
