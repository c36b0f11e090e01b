// A growable FIFO ring buffer: amortised O(1), no allocation once it has reached its high-water
// mark (std::deque allocates and frees blocks as it moves, which the hot path must not). An empty
// ring allocates nothing until its first push: a big fabric has tens of thousands of queues
// that never hold a frame.
//
// An owner may have a drained ring give memory back (shrink_drained): without it a switch
// queue that once held thousands of frames under congestion keeps their slots for the rest of
// the run, and a fabric's rings sum their high-water marks.
#pragma once
#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

namespace sluice {

template <typename T>
class ring {
 public:
  explicit ring(std::size_t capacity = 0)
      : slots_(capacity ? std::make_unique<T[]>(capacity) : nullptr), cap_(capacity) {}
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  const T& operator[](std::size_t i) const { return slots_[wrap(head_ + i)]; }
  void push_back(T v) {
    if (count_ == cap_) grow();
    slots_[wrap(head_ + count_)] = std::move(v);
    ++count_;
  }
  T pop_front() {
    T v = std::move(slots_[head_]);
    head_ = wrap(head_ + 1);
    --count_;
    return v;
  }
  std::size_t capacity() const { return cap_; }
  // An empty ring above spare_slots halves its capacity: half per drain, so a queue that
  // drains between bursts pays at most one reallocation per burst (and copies fewer slots than
  // the burst pushed), while one that stays drained sheds its slots over a few drains.
  static constexpr std::size_t spare_slots = 64;
  void shrink_drained() {
    if (count_ == 0 && cap_ > spare_slots) {
      cap_ = std::max(cap_ / 2, spare_slots);
      slots_ = std::make_unique<T[]>(cap_);
      head_ = 0;
    }
  }

 private:
  // i < 2 x capacity. Any capacity, not only powers of two: a compare where a mask was costs the
  // incast ~7 instructions per packet-hop (docs/performance.md).
  std::size_t wrap(std::size_t i) const { return i >= cap_ ? i - cap_ : i; }
  // By a quarter, not double: a fabric's queues hold about 1.1x their frames in slots, not 1.4x
  // (plus what high-water marks keep), and the switch buffers' descriptors are most of a
  // congested run's memory (docs/scale.md). The extra copies are made only while a queue
  // reaches a new high-water mark. Out of line: push_back then inlines into its callers (a
  // link's and an egress queue's push per hop), with no registers saved for the rare growth.
  [[gnu::noinline, gnu::cold]] void grow() {
    const std::size_t bigger_cap = cap_ < 8 ? 8 : cap_ + cap_ / 4;
    std::unique_ptr<T[]> bigger = std::make_unique<T[]>(bigger_cap);
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = std::move(slots_[wrap(head_ + i)]);
    slots_ = std::move(bigger);
    cap_ = bigger_cap;
    head_ = 0;
  }
  // The slots and their count side by side, not a std::vector: a push or a pop reads the
  // capacity as it is, where a vector's size is its end minus its start, divided.
  std::unique_ptr<T[]> slots_;
  std::size_t cap_ = 0, head_ = 0, count_ = 0;
};

}  // namespace sluice
