// A FIFO of trivially copyable elements in fixed-size segments (segment_pool.h) linked in order:
// a tail that fills its segment links a new one from the pool, a head that leaves a segment gives
// it back. Nothing is ever copied as a queue grows, an element stays in its slot until it leaves
// (a pointer to it stays good), and the memory held follows the elements queued: where a ring
// (ring.h) reallocates and copies every element as a deep queue climbs, and keeps its high-water
// mark's slots. A drained queue gives its segment back too (a congested fabric's tens of
// thousands of queues hold none while they are empty), and its next push takes the pool's last
// one: for a queue that holds one frame at a time (the uncongested switch's) the same segment,
// still cached. 24 bytes, as a ring with 32-bit indices.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "models/core/segment_pool.h"

namespace sluice {

template <typename T>
class segment_queue {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "slots are bytes: written in place, never destroyed");
  static_assert(sizeof(T) >= sizeof(void*) && 64 % sizeof(T) == 0,
                "a segment's link takes its first slot's place, and no slot straddles a cache line");

 public:
  // Elements a segment holds (its first slot's place is the link to the next segment).
  static constexpr std::size_t per_segment = segment_pool::bytes / sizeof(T) - 1;

  segment_queue() { segment_pool::join(); }
  segment_queue(const segment_queue&) = delete;
  segment_queue& operator=(const segment_queue&) = delete;
  ~segment_queue() {
    if (count_ > 0) {
      for (char* s = segment_before(head_); s != segment_before(tail_);) {
        char* next = link(s);
        segment_pool::give(s);
        s = next;
      }
      segment_pool::give(segment_before(tail_));
    }
    segment_pool::leave();
  }

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  T& front() { return *head_; }
  const T& front() const { return *head_; }
  // The element after `e`, which must not be the last.
  const T* next(const T* e) const {
    ++e;
    return at_end(e) ? first_slot(link(segment_before(e))) : e;
  }
  // Whether pred holds for an element, oldest first.
  template <typename Pred>
  bool any_of(Pred pred) const {
    const T* e = head_;
    for (std::size_t left = count_; left > 0; --left) {
      if (pred(*e)) return true;
      if (left > 1) e = next(e);
    }
    return false;
  }

  void push_back(const T& v) { emplace_back() = v; }
  // The new last slot, to be written in place (it holds whatever it held before): an owner that
  // packs a descriptor writes it once, not into a temporary and then again into the queue.
  T& emplace_back() {
    if (at_end(tail_)) add_segment();  // a full segment, or none (an empty queue)
    ++count_;
    return *tail_++;
  }
  T pop_front() {
    T v = *head_;
    drop_front();
    return v;
  }
  // Removes the first element, read in place through front().
  void drop_front() {
    ++head_;
    if (--count_ == 0) {  // drained: its segment back to the pool
      segment_pool::give(segment_before(head_));
      tail_ = nullptr;
    } else if (at_end(head_)) {
      next_segment();
    }
  }

 private:
  static constexpr std::uintptr_t offset_mask = segment_pool::bytes - 1;
  // Past a segment's last slot: on the next segment boundary (a null tail is too).
  static bool at_end(const T* p) { return (reinterpret_cast<std::uintptr_t>(p) & offset_mask) == 0; }
  // The segment of the slot before p (p a slot, or just past a segment's last one).
  static char* segment_before(const T* p) {
    return reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(p) - 1) & ~offset_mask);
  }
  static T* first_slot(char* segment) { return reinterpret_cast<T*>(segment + sizeof(T)); }
  static char*& link(char* segment) { return *reinterpret_cast<char**>(segment); }

  // Out of line, once a segment and at a push into an empty queue: push_back inlines into its
  // callers with no registers saved for it.
  [[gnu::noinline]] void add_segment() {
    char* s = static_cast<char*>(segment_pool::take());
    if (tail_)
      link(segment_before(tail_)) = s;
    else
      head_ = first_slot(s);
    tail_ = first_slot(s);
  }
  [[gnu::noinline, gnu::cold]] void next_segment() {
    char* done = segment_before(head_);
    head_ = first_slot(link(done));
    segment_pool::give(done);
  }

  T* head_ = nullptr;  // the first element's slot
  T* tail_ = nullptr;  // the slot the next element goes to (a segment's end when it is full; null when empty)
  uint32_t count_ = 0;
};

}  // namespace sluice
