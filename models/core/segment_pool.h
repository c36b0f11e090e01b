// Fixed-size, segment-aligned blocks for queues that grow by segments (segment_queue.h), from one
// LIFO free list that every such queue shares: a segment a queue's head has just emptied is the
// next one a tail is handed, while its lines are still cached, and the memory the queues hold
// follows the frames they hold, not each queue's high-water mark (docs/performance.md, sixteenth
// round). Segments come from large chunks, made as needed; the chunks are freed together when the
// last segment taken is given back (a fabric's teardown; tests build many). Models are made,
// run and destroyed on the simulation's thread.
#pragma once
#include <cstddef>

namespace sluice {

class segment_pool {
 public:
  static constexpr std::size_t bytes = 1024;  // a segment's size, and its alignment
  // A segment (uninitialised bytes), at an address that is a multiple of `bytes`.
  static void* take();
  static void give(void* segment) noexcept;
  // Segments taken and not yet given back (for tests).
  static std::size_t live();
};

}  // namespace sluice
