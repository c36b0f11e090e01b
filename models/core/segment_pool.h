// Fixed-size, segment-aligned blocks for queues that grow by segments (segment_queue.h), from one
// LIFO free list that every such queue shares: a segment a queue's head has just emptied (or a
// drained queue has given back) is the next one a tail is handed, while its lines are still
// cached, and the memory the queues hold follows the frames they hold, not each queue's
// high-water mark (docs/performance-history.md, sixteenth round). Segments come from large chunks, made as
// needed; the chunks are freed together when the last queue using the pool goes (a fabric's
// teardown; tests build many). Models are made and destroyed on the simulation's thread;
// a windowed run on threads runs them on several, each thread with its own free list.
#pragma once
#include <cstddef>

#include "models/core/per_thread.h"

namespace sluice {

namespace segment_pool {
constexpr std::size_t bytes = 512;  // a segment's size, and its alignment
// The last segment given back on this thread; its first bytes link to the one given back before it.
// Per thread (per_thread.h): a windowed run's lanes run queues on several.
SLUICE_PER_THREAD void* free_list = nullptr;
void* take_fresh();  // from a chunk (a new one if the last is used up)
// A segment (uninitialised bytes), at an address that is a multiple of `bytes`.
inline void* take() {
  void* p = free_list;
  if (!p) return take_fresh();
  free_list = *static_cast<void**>(p);
  return p;
}
inline void give(void* segment) {
  *static_cast<void**>(segment) = free_list;
  free_list = segment;
}
// A queue using the pool is made or destroyed (having given back its segments); when none is left,
// every chunk is freed.
void join();
void leave() noexcept;
// For tests: segments handed out and not given back (a walk of this thread's free list).
std::size_t held();
}  // namespace segment_pool

}  // namespace sluice
