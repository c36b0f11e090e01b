#include "platforms/timed_callbacks.h"

namespace sluice {

timed_callbacks::timed_callbacks(sc_core::sc_module_name name, uint64_t end_ps) : sc_module(name), end_ps_(end_ps) {
  SC_METHOD(fire);
  sensitive << wake_;
  dont_initialize();
}

void timed_callbacks::add(uint64_t at_ps, uint64_t period_ps, std::function<void()> fn) {
  entries_.push_back({period_ps, std::move(fn)});
  push(at_ps, entries_.size() - 1);
}

void timed_callbacks::push(uint64_t at_ps, std::size_t index) {
  if (at_ps <= end_ps_) queue_.push({at_ps, seq_++, index});
}

void timed_callbacks::start_of_simulation() {
  if (!queue_.empty() && queue_.top().at_ps < end_ps_) wake_.notify(sc_core::sc_time::from_value(queue_.top().at_ps));
}

// Due callbacks in time order, ties in the order they were added.
void timed_callbacks::call_due(uint64_t now) {
  while (!queue_.empty() && queue_.top().at_ps <= now) {
    const due d = queue_.top();
    queue_.pop();
    entry& e = entries_[d.index];
    if (e.period_ps) push(d.at_ps + e.period_ps, d.index);
    e.fn();
  }
}

void timed_callbacks::fire() {
  const uint64_t now = sc_core::sc_time_stamp().value();
  call_due(now);
  if (!queue_.empty() && queue_.top().at_ps < end_ps_)
    wake_.notify(sc_core::sc_time::from_value(queue_.top().at_ps - now));
}

void timed_callbacks::finish() {
  if (sc_core::sc_time_stamp().value() == end_ps_) call_due(end_ps_);
}

}  // namespace sluice
