// The frames on one link direction, oldest first: a FIFO ring of a power-of-two capacity with
// free-running indices. A link starts one frame and delivers one per packet-hop; here each
// masks an index and keeps no count, where ring.h (any capacity, for memory) compares to wrap
// and counts: fewer instructions a hop (docs/performance.md, twelfth round). A direction holds
// the few frames one propagation delay carries, so rounding its slots up to a power of two
// costs little.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace sluice {

// Index: uint32_t; a test takes uint8_t to wrap the free-running indices.
template <typename T, typename Index = uint32_t>
class flight_fifo {
 public:
  bool empty() const { return head_ == tail_; }
  Index size() const { return static_cast<Index>(tail_ - head_); }  // right across the indices' wrap
  T& front() { return slots_[head_ & mask_]; }
  const T& front() const { return slots_[head_ & mask_]; }
  const T& operator[](Index i) const { return slots_[static_cast<Index>(head_ + i) & mask_]; }
  void push_back(const T& v) {
    make_room();
    push_back_in_room(v);
  }
  // push_back in two: a caller that makes room first, before it computes the value, keeps none
  // of it across the growth's call (registers saved at every push, though it rarely grows).
  void make_room() {
    if (size() == capacity()) grow();  // also with no slots yet: capacity() is 0
  }
  void push_back_in_room(const T& v) {
    slots_[tail_ & mask_] = v;
    ++tail_;
  }
  T pop_front() {
    const T v = front();
    ++head_;
    return v;
  }
  Index capacity() const { return static_cast<Index>(mask_ + 1); }  // mask_ + 1 wraps to 0 with no slots

 private:
  // Out of line: a push inlines into the link's start with no registers kept for the growth.
  [[gnu::noinline, gnu::cold]] void grow() {
    const Index n = size();
    const std::size_t bigger = n < 8 ? 8 : 2 * std::size_t{n};
    if (bigger > Index(~Index{0})) throw std::length_error("flight_fifo: more frames in flight than its indices count");
    std::unique_ptr<T[]> slots(new T[bigger]());
    for (Index i = 0; i < n; ++i) slots[i] = (*this)[i];
    slots_ = std::move(slots);
    mask_ = static_cast<Index>(bigger - 1);
    head_ = 0;
    tail_ = n;
  }

  std::unique_ptr<T[]> slots_;
  Index head_ = 0, tail_ = 0;      // free-running: slot i & mask_
  Index mask_ = Index(~Index{0});  // capacity - 1; none yet
};

}  // namespace sluice
