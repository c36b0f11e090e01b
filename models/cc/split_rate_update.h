// The split-phase seam of a reaction point: a rate decision that takes time (an RTL block's
// clock cycles, a congestion-control engine busy with other flows) is taken when its event comes,
// and its new rate reaches the flow's limiter when the decision is ready. The reaction point
// drives this in place of the limiter it was given and says, before each set_rate, when the
// decision behind it is ready; a decision ready now goes straight through (the zero-latency
// path, the same calls in the same order). Decisions reach the limiter in the order taken.
// Its fixed-latency form is the NIC's delayed_rate_limiter (<nic>.rate_update_latency).
#pragma once
#include <algorithm>
#include <cstdint>

#include "models/cc/rate_limiter.h"
#include "models/core/event_queue.h"
#include "models/core/ring.h"

namespace sluice {

class split_rate_update : public rate_limiter_if, public timed_client {
 public:
  explicit split_rate_update(rate_limiter_if& limiter) : limiter_(limiter) {}
  // The model time the next set_rate's decision is ready (a time already past: at once).
  void ready_at(uint64_t at_ps) { ready_ps_ = at_ps; }
  // The request: the limiter takes r when the decision is ready, after any decision before it.
  void set_rate(data_rate r) override {
    const uint64_t now = now_ps();
    uint64_t at = std::max(ready_ps_, now);
    if (at == now && pending_.empty()) return limiter_.set_rate(r);
    if (!pending_.empty()) at = std::max(at, pending_[pending_.size() - 1].at_ps);
    pending_.push_back({at, r});
    if (pending_.size() == 1) event_queue::instance().schedule(this, at);
  }
  // What pacing applies now (a decision not yet ready has not taken effect).
  data_rate rate() const override { return limiter_.rate(); }
  uint64_t next_send_ps() const override { return limiter_.next_send_ps(); }
  void on_send(uint64_t now, uint64_t bytes, data_rate source_rate) override {
    limiter_.on_send(now, bytes, source_rate);
  }

 private:
  void on_timer() override {
    const uint64_t now = now_ps();
    while (!pending_.empty() && pending_.front().at_ps <= now) limiter_.set_rate(pending_.pop_front().rate);
    if (!pending_.empty()) event_queue::instance().schedule(this, pending_.front().at_ps);
  }
  struct update {
    uint64_t at_ps;
    data_rate rate;
  };
  rate_limiter_if& limiter_;
  uint64_t ready_ps_ = 0;
  ring<update> pending_{4};
};

}  // namespace sluice
