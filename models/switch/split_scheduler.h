// The split-phase form of the egress scheduler: it takes a decision request now and answers
// later, so a block that needs cycles (a Verilated scheduler) or service time (firmware) can
// sit where the C++ scheduler does. The zero-latency scheduler_if stays the fast path.
#pragma once
#include <array>
#include <cstdint>

#include "models/core/event_queue.h"
#include "models/switch/scheduler_if.h"

namespace sluice {

// Where a split-phase scheduler answers: the egress port that asked.
class scheduler_answer_if {
 public:
  virtual ~scheduler_answer_if() = default;
  // The queue chosen for the request outstanding, or -1 to decline; at the model time the
  // decision is ready (now_ps()), at or after the request.
  virtual void scheduled(int queue) = 0;
};

class split_scheduler_if {
 public:
  virtual ~split_scheduler_if() = default;
  // The same inputs as scheduler_if::select; head_bytes lasts for the call only (copy what the
  // answer needs). At most one request is outstanding per port. The answer may come from inside
  // this call (no latency) or later, through to.scheduled().
  virtual void request(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible,
                       scheduler_answer_if& to) = 0;
};

// A scheduler_if whose answer takes a fixed latency: the decision is taken (and the scheduler's
// state charged) when asked, and delivered `latency_ps` later. `<sw>.port<i>.scheduler_latency`
// wraps a port's scheduler in one; tests use it as the stand-in for an RTL block.
class latency_scheduler : public split_scheduler_if, public timed_client {
 public:
  latency_scheduler(scheduler_if& inner, uint64_t latency_ps) : inner_(inner), latency_ps_(latency_ps) {}
  void request(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible,
               scheduler_answer_if& to) override {
    answer_ = inner_.select(head_bytes, eligible);
    to_ = &to;
    if (latency_ps_ == 0) return to.scheduled(answer_);
    event_queue::instance().schedule(this, now_ps() + latency_ps_);
  }

 private:
  void on_timer() override { to_->scheduled(answer_); }
  scheduler_if& inner_;
  uint64_t latency_ps_;
  int answer_ = -1;
  scheduler_answer_if* to_ = nullptr;
};

}  // namespace sluice
