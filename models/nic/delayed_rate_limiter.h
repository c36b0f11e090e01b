// The split-phase form of a rate limiter: a rate update is a request that takes effect a fixed
// time later (the write of firmware or of a congestion-control engine reaching the NIC's pacing
// hardware), in the order asked. `<nic>.rate_update_latency` wraps each flow's limiter in one.
#pragma once
#include <cstdint>

#include "models/cc/rate_limiter.h"
#include "models/core/event_queue.h"
#include "models/core/ring.h"

namespace sluice {

class delayed_rate_limiter : public rate_limiter_if, public timed_client {
 public:
  delayed_rate_limiter(rate_limiter_if& inner, uint64_t latency_ps) : inner_(inner), latency_ps_(latency_ps) {
    inner_.on_change([this] { changed(); });
  }
  // The request: the inner limiter takes r latency_ps from now.
  void set_rate(data_rate r) override {
    pending_.push_back({now_ps() + latency_ps_, r});
    if (pending_.size() == 1) event_queue::instance().schedule(this, pending_.front().at_ps);
  }
  // What pacing applies now (an update in flight has not taken effect).
  data_rate rate() const override { return inner_.rate(); }
  uint64_t next_send_ps() const override { return inner_.next_send_ps(); }
  void on_send(uint64_t now_ps, uint64_t bytes, data_rate source_rate) override {
    inner_.on_send(now_ps, bytes, source_rate);
  }

 private:
  void on_timer() override {
    const uint64_t now = now_ps();
    while (!pending_.empty() && pending_.front().at_ps <= now) inner_.set_rate(pending_.pop_front().rate);
    if (!pending_.empty()) event_queue::instance().schedule(this, pending_.front().at_ps);
  }
  struct update {
    uint64_t at_ps;
    data_rate rate;
  };
  rate_limiter_if& inner_;
  uint64_t latency_ps_;
  ring<update> pending_{4};
};

}  // namespace sluice
