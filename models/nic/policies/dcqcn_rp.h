// DCQCN's reaction point as a pure state machine (Zhu et al., SIGCOMM'15; docs/models/dcqcn.md).
// Rates in bit/s. The registered policy (dcqcn_rp.cpp) turns time into the alpha-timer and
// rate-timer events and the flow's sent bytes into byte-counter events, and sets the flow's
// limiter to rc after each event.
//
//   hold (TCD):   rt <- rc; byte counter and stage counts reset (no cut, alpha unchanged)
//   CNP:          rt <- rc; rc <- max(rc * (1 - alpha/2), min); alpha <- (1 - g) alpha + g;
//                 byte counter, both stage counts reset (the timers restart, by the caller)
//   alpha timer:  alpha <- (1 - g) alpha                      (no CNP for tau')
//   rate timer:   timer stage += 1, then an increase          (every T)
//   byte counter: byte stage += 1, then an increase           (every B bytes sent)
//   increase:     with hi = max(stages), lo = min(stages):
//                 hi <= F (fast recovery):   rc <- (rt + rc) / 2
//                 lo <= F < hi (additive):   rt <- rt + R_AI,            rc <- (rt + rc) / 2
//                 F < lo (hyper):            rt <- rt + (lo - F) R_HAI,  rc <- (rt + rc) / 2
//                 rt and rc capped at the line rate.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sluice {

struct dcqcn_rp_config {
  double g = 1.0 / 256;
  uint64_t byte_counter = 10'000'000;  // B, bytes
  uint32_t fast_recovery = 5;          // F
  double rai = 40e6, rhai = 200e6;     // bit/s
  double min_rate = 100e6;             // bit/s
  double line_rate = 40e9;             // bit/s: the cap, and the start rate
};

class dcqcn_rp_state {
 public:
  enum class stage { fast_recovery, additive, hyper };

  dcqcn_rp_state(double line_rate, double alpha0) : rc_(line_rate), rt_(line_rate), alpha_(alpha0) {}

  void on_cnp(const dcqcn_rp_config& c) {
    rt_ = rc_;
    rc_ = std::max(rc_ * (1 - alpha_ / 2), c.min_rate);
    alpha_ = (1 - c.g) * alpha_ + c.g;
    bytes_ = 0;
    timer_stage_ = byte_stage_ = 0;
  }
  // TCD's "hold" (dcqcn-tcd, docs/models/tcd.md): no cut and no alpha change, but the recovery
  // restarts from here: rt <- rc, byte counter and both stage counts reset (the timers restart,
  // by the caller). The rate stays until the next increase event.
  void on_hold() {
    rt_ = rc_;
    bytes_ = 0;
    timer_stage_ = byte_stage_ = 0;
  }
  // k alpha-timer expiries in a row (k > 1: the caller caught up on a stretch without timers).
  void on_alpha_timer(const dcqcn_rp_config& c, uint64_t k = 1) {
    alpha_ *= k == 1 ? 1 - c.g : std::pow(1 - c.g, static_cast<double>(k));
  }
  void on_rate_timer(const dcqcn_rp_config& c) {
    ++timer_stage_;
    increase(c);
  }
  // The flow sent `bytes`; returns how many byte-counter events that made (each an increase).
  uint32_t on_bytes(const dcqcn_rp_config& c, uint64_t bytes) {
    bytes_ += bytes;
    uint32_t events = 0;
    while (c.byte_counter && bytes_ >= c.byte_counter) {
      bytes_ -= c.byte_counter;
      ++byte_stage_;
      ++events;
      increase(c);
    }
    return events;
  }

  double rc() const { return rc_; }
  double rt() const { return rt_; }
  double alpha() const { return alpha_; }
  uint32_t timer_stage() const { return timer_stage_; }
  uint32_t byte_stage() const { return byte_stage_; }
  uint64_t bytes() const { return bytes_; }
  stage last_stage() const { return last_stage_; }

 private:
  void increase(const dcqcn_rp_config& c) {
    const uint32_t hi = std::max(timer_stage_, byte_stage_), lo = std::min(timer_stage_, byte_stage_);
    if (hi <= c.fast_recovery) {
      last_stage_ = stage::fast_recovery;
    } else if (lo <= c.fast_recovery) {
      last_stage_ = stage::additive;
      rt_ += c.rai;
    } else {
      last_stage_ = stage::hyper;
      rt_ += static_cast<double>(lo - c.fast_recovery) * c.rhai;
    }
    rt_ = std::min(rt_, c.line_rate);
    rc_ = std::min((rt_ + rc_) / 2, c.line_rate);
  }

  double rc_, rt_, alpha_;
  uint64_t bytes_ = 0;
  uint32_t timer_stage_ = 0, byte_stage_ = 0;
  stage last_stage_ = stage::fast_recovery;
};

}  // namespace sluice
