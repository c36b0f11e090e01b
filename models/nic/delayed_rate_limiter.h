// The split-phase form of a rate limiter: a rate update is a request that takes effect a fixed
// time later (the write of firmware or of a congestion-control engine reaching the NIC's pacing
// hardware), in the order asked. `<nic>.rate_update_latency` wraps each flow's limiter in one:
// bound in the limiter's place, it relays the limiter's changes to the NIC.
#pragma once
#include <cstdint>

#include "models/cc/split_rate_update.h"

namespace sluice {

class delayed_rate_limiter final : public split_rate_update {
 public:
  delayed_rate_limiter(rate_limiter_if& inner, uint64_t latency_ps)
      : split_rate_update(inner), latency_ps_(latency_ps) {
    inner.on_change([this] { changed(); });
  }
  // The request: the inner limiter takes r latency_ps from now.
  void set_rate(data_rate r) override {
    ready_at(now_ps() + latency_ps_);
    split_rate_update::set_rate(r);
  }

 private:
  uint64_t latency_ps_;
};

}  // namespace sluice
