// A constant-latency FIFO: items pushed at t come out at t + latency, in order, through one
// pending wake-up at a time. Cheaper than a payload event queue (no time-ordered structure of
// its own) wherever the delay is the same for every item: link propagation.
#pragma once
#include <functional>

#include "models/core/event_queue.h"
#include "models/core/ring.h"
#include "models/core/units.h"

namespace sluice {

template <typename T>
class delay_line : public timed_client {
 public:
  using handler = std::function<void(T)>;
  explicit delay_line(handler on_exit) : on_exit_(std::move(on_exit)), queue_(event_queue::instance()) {}

  // Item leaves at now + delay. Delays must not decrease between pushes (FIFO order).
  void push(T item, const sc_core::sc_time& delay) { push_at(std::move(item), now_ps() + to_ps(delay)); }
  // Item leaves at due_ps (absolute), not before the items pushed earlier.
  void push_at(T item, uint64_t due) {
    bool was_empty = items_.empty();
    items_.push_back({due, std::move(item)});
    if (was_empty) queue_.schedule(this, due);
  }
  std::size_t in_flight() const { return items_.size(); }

  void on_timer() override {
    uint64_t now = now_ps();
    while (!items_.empty() && items_.front().due_ps <= now) on_exit_(items_.pop_front().item);
    if (!items_.empty()) queue_.schedule(this, items_.front().due_ps);
  }

 private:
  struct entry {
    uint64_t due_ps;
    T item;
  };
  handler on_exit_;
  event_queue& queue_;
  ring<entry> items_;
};

}  // namespace sluice
