// Per-flow rate limiter: the knob congestion control turns. A pacing limiter: a frame of B
// bytes may start no earlier than the previous start + B x 8 / rate.
#pragma once
#include <cstdint>

#include "models/core/units.h"

namespace sluice {

class rate_limiter_if {
 public:
  virtual ~rate_limiter_if() = default;
  virtual void set_rate(data_rate r) = 0;
  virtual data_rate rate() const = 0;
};

class pacing_limiter : public rate_limiter_if {
 public:
  explicit pacing_limiter(data_rate r = data_rate{0}) : rate_(r) {}
  void set_rate(data_rate r) override { rate_ = r; }
  data_rate rate() const override { return rate_; }
  uint64_t next_ps() const { return next_ps_; }
  // Charges a frame that starts at now_ps against `effective` (the lower of limiter and source).
  void charge(uint64_t now_ps, uint64_t bytes, data_rate effective) {
    uint64_t start = next_ps_ > now_ps ? next_ps_ : now_ps;
    next_ps_ = start + to_ps(effective.serialization(bytes));
  }

 private:
  data_rate rate_;
  uint64_t next_ps_ = 0;
};

}  // namespace sluice
