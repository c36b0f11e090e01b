// Per-flow rate limiter: the knob congestion control turns, and a block boundary (an RTL or
// firmware limiter can be bound in place of the default with nic::bind_limiter).
#pragma once
#include <cstdint>
#include <functional>

#include "models/core/units.h"

namespace sluice {

class rate_limiter_if {
 public:
  virtual ~rate_limiter_if() = default;
  // The rate congestion control sets; 0 means "no limit". Takes effect at once: the next
  // frame's start is recomputed from the last start at the new rate.
  virtual void set_rate(data_rate r) = 0;
  virtual data_rate rate() const = 0;
  // Earliest time (ps) the flow's next frame may start.
  virtual uint64_t next_send_ps() const = 0;
  // A frame of `bytes` wire bytes starts at now_ps; `source_rate` is the flow's own pace
  // (its configured rate, or line rate).
  virtual void on_send(uint64_t now_ps, uint64_t bytes, data_rate source_rate) = 0;
  // The NIC's transmit scheduler listens, so a changed next_send_ps() re-orders the flow at once.
  void on_change(std::function<void()> hook) { hook_ = std::move(hook); }

 protected:
  void changed() {
    if (hook_) hook_();
  }

 private:
  std::function<void()> hook_;
};

// The default: pacing. A frame of B bytes may start no earlier than the previous start plus
// B x 8 / min(rate, source rate).
class pacing_limiter : public rate_limiter_if {
 public:
  explicit pacing_limiter(data_rate r = data_rate{0}) : rate_(r) {}
  void set_rate(data_rate r) override {
    rate_ = r;
    if (last_bytes_) {
      const uint64_t last_start_ps = next_ps_ - last_ps_;
      last_ps_ = effective(last_source_).serialization_ps(last_bytes_);
      next_ps_ = last_start_ps + last_ps_;
    }
    changed();
  }
  data_rate rate() const override { return rate_; }
  uint64_t next_send_ps() const override { return next_ps_; }
  void on_send(uint64_t now_ps, uint64_t bytes, data_rate source_rate) override {
    uint64_t start = next_ps_ > now_ps ? next_ps_ : now_ps;
    // A frame of the last one's size at its pace takes as long (a flow's frames are mostly full
    // ones): no division. The rate is the same too: set_rate worked out its time again.
    if (bytes != last_bytes_ || source_rate.bps != last_source_.bps) {
      last_bytes_ = bytes;
      last_source_ = source_rate;
      last_ps_ = effective(source_rate).serialization_ps(bytes);
    }
    next_ps_ = start + last_ps_;
  }

 private:
  data_rate effective(data_rate source_rate) const {
    return rate_.bps > 0 && rate_ < source_rate ? rate_ : source_rate;
  }
  data_rate rate_;
  uint64_t next_ps_ = 0, last_bytes_ = 0;
  // The last frame's pace (none before the first: no rate is negative) and time on the wire at
  // that pace: the time of a frame of last_bytes_ at last_source_ at the current rate (a frame
  // of 0 bytes takes 0 at any rate). The last frame started at next_ps_ - last_ps_ (no field:
  // a limiter stays 80 bytes).
  data_rate last_source_{-1};
  uint64_t last_ps_ = 0;
};

}  // namespace sluice
