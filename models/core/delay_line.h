// A constant-latency FIFO: items pushed at t come out at t + latency, in order, through one
// SC_METHOD and one event. Cheaper than a payload event queue (no time-ordered heap) wherever
// the delay is the same for every item: link propagation, switch pipeline.
#pragma once
#include <functional>

#include <systemc>

#include "models/core/ring.h"
#include "models/core/units.h"

namespace sluice {

template <typename T>
class delay_line : public sc_core::sc_module {
 public:
  using handler = std::function<void(T)>;
  delay_line(sc_core::sc_module_name name, handler on_exit) : sc_module(name), on_exit_(std::move(on_exit)) {
    SC_METHOD(drain);
    sensitive << ready_;
    dont_initialize();
  }
  SC_HAS_PROCESS(delay_line);

  // Item leaves at now + delay. Delays must not decrease between pushes (FIFO order).
  void push(T item, const sc_core::sc_time& delay) {
    uint64_t due = to_ps(sc_core::sc_time_stamp() + delay);
    bool was_empty = items_.empty();
    items_.push_back({due, std::move(item)});
    if (was_empty) ready_.notify(delay);
  }
  std::size_t in_flight() const { return items_.size(); }

 private:
  struct entry { uint64_t due_ps; T item; };
  void drain() {
    uint64_t now = to_ps(sc_core::sc_time_stamp());
    while (!items_.empty() && items_.front().due_ps <= now) on_exit_(items_.pop_front().item);
    if (!items_.empty()) ready_.notify(from_ps(items_.front().due_ps - now));
  }
  handler on_exit_;
  ring<entry> items_;
  sc_core::sc_event ready_;
};

}  // namespace sluice
