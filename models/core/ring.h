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
  explicit ring(std::size_t capacity = 0) : slots_(capacity ? new T[capacity]() : nullptr), capacity_(capacity) {}
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  const T& operator[](std::size_t i) const { return slots_[wrap(head_ + i)]; }
  void push_back(T v) {
    if (count_ == capacity_) grow();
    slots_[wrap(head_ + count_)] = std::move(v);
    ++count_;
  }
  // The new last slot, to be written in place (it holds whatever it held before): an owner that
  // packs a descriptor writes it once, not into a temporary and then again into the ring.
  T& emplace_back() {
    if (count_ == capacity_) grow();
    ++count_;
    return slots_[wrap(head_ + count_ - 1)];
  }
  T pop_front() {
    T v = std::move(slots_[head_]);
    drop_front();
    return v;
  }
  // Removes the first element, read in place through front().
  void drop_front() {
    head_ = wrap(head_ + 1);
    --count_;
  }
  std::size_t capacity() const { return capacity_; }
  // An empty ring above spare_slots halves its capacity: half per drain, so a queue that
  // drains between bursts pays at most one reallocation per burst (and copies fewer slots than
  // the burst pushed), while one that stays drained sheds its slots over a few drains.
  static constexpr std::size_t spare_slots = 64;
  void shrink_drained() {
    if (count_ == 0 && capacity_ > spare_slots) {
      capacity_ = std::max(capacity_ / 2, spare_slots);
      slots_.reset(new T[capacity_]());
      head_ = 0;
    }
  }

 private:
  // i < 2 x capacity. Any capacity, not only powers of two: a compare where a mask was costs the
  // incast ~7 instructions per packet-hop (docs/performance.md).
  std::size_t wrap(std::size_t i) const { return i >= capacity_ ? i - capacity_ : i; }
  // By a quarter, not double: a fabric's queues hold about 1.1x their frames in slots, not 1.4x
  // (plus what high-water marks keep), and the switch buffers' descriptors are most of a
  // congested run's memory (docs/scale.md). The extra copies are made only while a queue
  // reaches a new high-water mark. Out of line: push_back then inlines into its callers (a
  // link's and an egress queue's push per hop), with no registers saved for the rare growth.
  [[gnu::noinline, gnu::cold]] void grow() {
    const std::size_t bigger = capacity_ < 8 ? 8 : capacity_ + capacity_ / 4;
    std::unique_ptr<T[]> slots(new T[bigger]());
    for (std::size_t i = 0; i < count_; ++i) slots[i] = std::move(slots_[wrap(head_ + i)]);
    slots_ = std::move(slots);
    capacity_ = bigger;
    head_ = 0;
  }
  // An array and its capacity, not a std::vector: wrap compares with a stored capacity instead
  // of dividing the vector's byte length by the element size (48-byte descriptors), and a ring
  // is 32 bytes, not 40.
  std::unique_ptr<T[]> slots_;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace sluice
