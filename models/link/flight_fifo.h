// The frames on one link direction, oldest first: a FIFO ring of a power-of-two capacity with
// free-running indices, in two halves. A link starts one frame and delivers one per packet-hop;
// here each masks an index and keeps no count, where ring.h (any capacity, for memory) compares
// to wrap and counts: fewer instructions a hop (docs/performance-history.md, twelfth round). A direction
// holds the few frames one propagation delay carries, so rounding its slots up to a power of
// two costs little.
//
// The writer (the start) and the reader (the delivery) each keep the slots' address, their own
// index and the mask, in their own user's cache line: a start and a delivery, a microsecond
// apart, share no line but the slots' (docs/performance-history.md, sixteenth round). Neither reads the
// other's index: a free slot holds no item (the reader empties the slot it takes), so the
// writer finds room in the slot it is about to fill and the reader a next frame in the slot
// after the one it took.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace sluice {

// Index: uint32_t; a test takes uint8_t to wrap the free-running indices.
template <typename Item, typename Index = uint32_t>
class flight_fifo {
 public:
  struct slot {
    uint64_t at_ps;  // the link's: its last bit at the receiver
    Item* item;      // nullptr: a free slot
  };
  class reader;

  class writer {
   public:
    // Grows (with the reader's half) when the slot to fill still holds an item: the ring is full.
    // First, before the caller computes the item: it then keeps none of it across the growth's call.
    void make_room(reader& r) {
      if (slots_[tail_ & mask_].item) grow(*this, r);  // also with no slots yet (no_room_)
    }
    void push_in_room(uint64_t at_ps, Item* item) {
      slots_[tail_ & mask_] = {at_ps, item};
      ++tail_;
    }

   private:
    friend class flight_fifo;
    // A writer with no slots yet looks at this one, never free: its first push grows.
    static inline slot no_room_{0, reinterpret_cast<Item*>(&writer::no_room_)};
    slot* slots_ = &no_room_;
    Index tail_ = 0;  // free-running: slot i & mask_
    Index mask_ = 0;  // capacity - 1
  };

  class reader {
   public:
    reader() = default;
    reader(const reader&) = delete;
    reader& operator=(const reader&) = delete;
    ~reader() { release(); }
    bool empty() const { return !front().item; }
    const slot& front() const { return slots_[head_ & mask_]; }
    slot pop_front() {
      slot& s = slots_[head_ & mask_];
      const slot v = s;
      s.item = nullptr;  // free for the writer
      ++head_;
      return v;
    }
    Index capacity() const { return slots_ == &none_ ? 0 : static_cast<Index>(mask_ + 1); }
    // The items in flight, counted from both halves' indices (tests, growth).
    static Index size(const writer& w, const reader& r) { return static_cast<Index>(w.tail_ - r.head_); }

   private:
    friend class flight_fifo;
    void release() {
      if (slots_ != &none_) delete[] slots_;
    }
    // A reader with no slots yet looks at this one, always free: the ring is empty. The reader
    // owns the slots; the writer's pointer is to the same array.
    static inline slot none_{0, nullptr};
    slot* slots_ = &none_;
    Index head_ = 0;  // free-running: slot i & mask_
    Index mask_ = 0;
  };

  // Out of line: a push inlines into the link's start with no registers kept for the growth.
  [[gnu::noinline, gnu::cold]] static void grow(writer& w, reader& r) {
    const Index n = reader::size(w, r);
    const std::size_t bigger = n < 8 ? 8 : 2 * std::size_t{n};
    if (bigger > Index(~Index{0})) throw std::length_error("flight_fifo: more frames in flight than its indices count");
    slot* slots = new slot[bigger]();  // every slot free
    for (Index i = 0; i < n; ++i) slots[i] = r.slots_[static_cast<Index>(r.head_ + i) & r.mask_];
    r.release();
    r.slots_ = w.slots_ = slots;
    r.mask_ = w.mask_ = static_cast<Index>(bigger - 1);
    r.head_ = 0;
    w.tail_ = n;
  }
};

}  // namespace sluice
