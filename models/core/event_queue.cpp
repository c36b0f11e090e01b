#include "models/core/event_queue.h"

#include "models/core/units.h"

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
  if (c->heap_index_ >= 0) {
    if (at_ps >= c->at_ps_) return;  // the earlier wake-up stands
    c->at_ps_ = at_ps;
    c->seq_ = seq_++;
    sift_up(static_cast<std::size_t>(c->heap_index_));
  } else {
    c->at_ps_ = at_ps;
    c->seq_ = seq_++;
    heap_.push_back(c);
    c->heap_index_ = static_cast<int>(heap_.size() - 1);
    sift_up(heap_.size() - 1);
  }
  if (!running_ && at_ps < armed_ps_) arm(to_ps(sc_core::sc_time_stamp()));
}

void event_queue::sift_up(std::size_t i) {
  timed_client* c = heap_[i];
  while (i > 0) {
    std::size_t parent = (i - 1) / 2;
    if (!before(c, heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, c);
}

void event_queue::sift_down(std::size_t i) {
  timed_client* c = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], c)) break;
    place(i, heap_[child]);
    i = child;
  }
  place(i, c);
}

void event_queue::arm(uint64_t now_ps) {
  if (heap_.empty()) {
    armed_ps_ = never_armed;
    return;
  }
  armed_ps_ = heap_.front()->at_ps_;
  wake_.notify(from_ps(armed_ps_ - now_ps));  // an earlier notification replaces a later one
}

void event_queue::run() {
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  running_ = true;
  while (!heap_.empty() && heap_.front()->at_ps_ <= now) {
    timed_client* c = heap_.front();
    timed_client* last = heap_.back();
    heap_.pop_back();
    if (c != last) {
      place(0, last);
      sift_down(0);
    }
    c->heap_index_ = -1;
    c->at_ps_ = std::numeric_limits<uint64_t>::max();
    c->on_timer();  // may schedule again, including at `now`
  }
  running_ = false;
  arm(now);
}

}  // namespace sluice
