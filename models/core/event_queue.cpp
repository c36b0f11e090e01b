#include "models/core/event_queue.h"

#include <algorithm>
#include <string>

namespace sluice {
namespace {
constexpr uint64_t never_armed = std::numeric_limits<uint64_t>::max();
}

event_queue& event_queue::instance() {
  static event_queue* queue = new event_queue("sluice_event_queue");  // owned by the kernel's hierarchy
  return *queue;
}

event_queue::event_queue(sc_core::sc_module_name name) : sc_module(name), armed_ps_(never_armed) {
  heap_.reserve(256);
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void event_queue::schedule(timed_client* c, uint64_t at_ps) {
  if (at_ps < now_ps())
    SC_REPORT_ERROR(name(), ("wake-up scheduled in the past: " + std::to_string(at_ps) + " ps < now " +
                             std::to_string(now_ps()) + " ps")
                                .c_str());
  if (c->heap_index_ >= 0) {
    entry& e = heap_[static_cast<std::size_t>(c->heap_index_)];
    if (at_ps >= e.at_ps) return;  // the earlier wake-up stands
    e.at_ps = at_ps;
    e.seq = seq_++;
    sift_up(static_cast<std::size_t>(c->heap_index_));
  } else {
    heap_.push_back({at_ps, seq_++, c});
    c->heap_index_ = static_cast<int>(heap_.size() - 1);
    sift_up(heap_.size() - 1);
  }
  if (!running_ && at_ps < armed_ps_) arm(sc_core::sc_time_stamp().value());
}

// A 4-ary heap: half the depth of a binary one over thousands of clients, and a node's four
// children share a cache line or two.
void event_queue::sift_up(std::size_t i) {
  entry e = heap_[i];
  while (i > 0) {
    std::size_t parent = (i - 1) / arity;
    if (!e.before(heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, e);
}

// Removes the root. Bottom-up: the hole goes down along the smallest children to a leaf, and the
// last entry (which almost always belongs near the bottom) sifts up from there, which saves
// comparing it at every level on the way down.
void event_queue::pop_root() {
  entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  std::size_t i = 0;
  for (;;) {
    std::size_t first = arity * i + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = std::min(first + arity, n);
    for (std::size_t c = first + 1; c < end; ++c)
      if (heap_[c].before(heap_[best])) best = c;
    place(i, heap_[best]);
    i = best;
  }
  heap_[i] = last;
  sift_up(i);
}

void event_queue::arm(uint64_t kernel_ps) {
  if (heap_.empty()) {
    armed_ps_ = never_armed;
    return;
  }
  armed_ps_ = std::max(heap_.front().at_ps, kernel_ps);
  wake_.notify(sc_core::sc_time::from_value(armed_ps_ - kernel_ps));  // an earlier notification replaces a later one
}

// Wake-ups due at or before the returned time run in this activation: everything before the
// next foreign kernel activity and before the end of the run; never less than the kernel's now.
uint64_t event_queue::drain_limit(uint64_t kernel_ps) const {
  if (end_ps_ <= kernel_ps) return kernel_ps;
  uint64_t gap = sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext()).value();
  uint64_t foreign = gap > never_ps - kernel_ps ? never_ps : kernel_ps + gap;
  uint64_t bound = std::min(foreign, end_ps_);
  return bound > kernel_ps ? bound - 1 : kernel_ps;  // a foreign event's own time belongs to the kernel
}

void event_queue::run() {
  const uint64_t kernel = sc_core::sc_time_stamp().value();
  ++activations_;
  if (stop_) {  // the kernel has caught up with the time a stop was requested at
    stop_ = false;
    armed_ps_ = never_armed;
    sc_core::sc_stop();
    return;
  }
  const uint64_t limit = drain_limit(kernel);
  running_ = true;
  clock_detail::draining = true;
  clock_detail::now = kernel;
  while (!heap_.empty() && heap_.front().at_ps <= limit && !stop_) {
    entry e = heap_.front();
    pop_root();
    e.client->heap_index_ = -1;
    clock_detail::now = std::max(clock_detail::now, e.at_ps);
    e.client->on_timer();  // may schedule again, including at now
  }
  const uint64_t reached = clock_detail::now;
  clock_detail::draining = false;
  running_ = false;
  if (stop_) {
    if (reached == kernel) {
      stop_ = false;
      armed_ps_ = never_armed;
      sc_core::sc_stop();
      return;
    }
    armed_ps_ = reached;
    wake_.notify(sc_core::sc_time::from_value(reached - kernel));
    return;
  }
  arm(kernel);
}

void event_queue::request_stop() {
  if (running_)
    stop_ = true;  // the drain ends after the current wake-up; sc_stop once the kernel is there
  else
    sc_core::sc_stop();
}

void start(const sc_core::sc_time& duration) {
  event_queue& q = event_queue::instance();
  q.set_end(sc_core::sc_time_stamp().value() + duration.value());
  sc_core::sc_start(duration);
  q.set_end(0);
}

}  // namespace sluice
