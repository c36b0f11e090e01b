// A growable FIFO ring buffer: amortised O(1), no allocation once it has reached its high-water
// mark (std::deque allocates and frees blocks as it moves, which the hot path must not). An empty
// ring allocates nothing until its first push: a big fabric has tens of thousands of queues
// that never hold a frame.
//
// A ring keeps its high-water mark's slots. The switch egress queues, which hold most of a
// congested fabric's frames, are in segments instead (segment_queue.h): no copy as they grow,
// and memory that follows the frames queued.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace sluice {

template <typename T>
class ring {
 public:
  explicit ring(std::size_t capacity = 0) : slots_(capacity ? allocate(capacity) : nullptr), capacity_(capacity) {}
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

 private:
  // i < 2 x capacity. Any capacity, not only powers of two: a compare where a mask was costs the
  // incast ~7 instructions per packet-hop (docs/performance-history.md).
  std::size_t wrap(std::size_t i) const { return i >= capacity_ ? i - capacity_ : i; }
  // By an eighth and at least 16 slots, not double: chosen when the switch buffers' descriptors,
  // most of a congested run's memory, were rings (segment_queue.h since), as a queue's slots beyond its frames average
  // half a step (6 % here, 12 % by a quarter; docs/scale-history.md, twelfth round). The 16-slot floor keeps a queue of
  // about a hundred frames (a congested fabric's usual) at as few copies as by a quarter, which took many small steps
  // there. The extra copies are made only while a queue reaches a new high-water mark. Out of line: push_back then
  // inlines into its callers (pushes on per-frame paths), with no registers saved for the rare growth.
  [[gnu::noinline, gnu::cold]] void grow() {
    const std::size_t bigger = capacity_ < 8 ? 8 : capacity_ + std::max<std::size_t>(capacity_ / 8, 16);
    std::unique_ptr<T[], release> slots(allocate(bigger));
    if constexpr (raw) {  // the two runs of the old slots, oldest first: two copies, not a wrap per slot
      if (count_ > 0) {   // an empty ring may have no array: memcpy from null is undefined (UBSan)
        const std::size_t first = std::min(count_, capacity_ - head_);
        std::memcpy(static_cast<void*>(slots.get()), slots_.get() + head_, first * sizeof(T));
        std::memcpy(static_cast<void*>(slots.get() + first), slots_.get(), (count_ - first) * sizeof(T));
      }
    } else {
      for (std::size_t i = 0; i < count_; ++i) slots[i] = std::move(slots_[wrap(head_ + i)]);
    }
    slots_ = std::move(slots);
    capacity_ = bigger;
    head_ = 0;
  }
  // An array and its capacity, not a std::vector: wrap compares with a stored capacity instead
  // of dividing the vector's byte length by the element size (48-byte descriptors), and a ring
  // is 32 bytes, not 40.
  // Slots of a type copied as bytes (descriptors, pointers, plain records) are made unwritten:
  // zeroing a new array and then copying the old slots over it was most of a growth's cost, and a
  // congested fabric's queues grow many times while they fill (docs/scale-history.md, twelfth round).
  static constexpr bool raw = std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;
  struct release {
    void operator()(T* p) const {
      if constexpr (raw)
        ::operator delete(static_cast<void*>(p));
      else
        delete[] p;
    }
  };
  static T* allocate(std::size_t n) {
    if constexpr (raw)
      return static_cast<T*>(::operator new(n * sizeof(T)));
    else
      return new T[n]();
  }
  std::unique_ptr<T[], release> slots_;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace sluice
