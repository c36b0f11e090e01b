// DCQCN's reaction point as a pure state machine (Zhu et al., SIGCOMM'15; docs/models/dcqcn.md).
// Rates in bit/s. The registered policy (dcqcn_rp.cpp) turns time into the alpha-timer,
// rate-timer and rate-decrease events and the flow's sent bytes into byte-counter events, and
// sets the flow's limiter to rc after each event.
//
//   hold (TCD):   rt <- rc; byte counter and stage counts reset (no cut, alpha unchanged)
//   CNP:          note_cnp, then cut (at once, or at the next rate-decrease tick: the caller)
//   note_cnp:     per-window alpha: the window saw a CNP. per-cnp alpha: nothing (see cut)
//   cut:          rt <- rc if clamp_target, or if clamp_after_time_inc and a rate-timer event
//                 came since the last cut; rc <- max(rc * (1 - alpha/2), min);
//                 per-cnp alpha: alpha <- (1 - g) alpha + g, before or after the cut (cut_alpha);
//                 byte counter, both stage counts reset (the rate timer restarts, by the caller)
//   alpha timer:  per-cnp: alpha <- (1 - g) alpha             (no CNP for tau')
//                 per-window: alpha <- (1 - g) alpha + g [a CNP in the window]  (every tau')
//   rate timer:   timer stage += 1, then an increase          (every T)
//   byte counter: byte stage += 1, then an increase           (every B bytes sent)
//   increase, both-counters (paper), with hi = max(stages), lo = min(stages):
//                 hi <= F (fast recovery):   rc <- (rt + rc) / 2
//                 lo <= F < hi (additive):   rt <- rt + R_AI,   rc <- (rt + rc) / 2
//                 F < lo (hyper):            rt <- rt + step,   rc <- (rt + rc) / 2, step (lo - F) R_HAI
//   increase, timer (HPCC ns-3), with t = the timer stage:
//                 t <= F fast recovery; t = F + 1 additive; t > F + 1 hyper, step (t - F - 1) R_HAI
//   hyper_step fixed: the step is R_HAI whatever the stage.   rt and rc capped at the line rate.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sluice {

enum class dcqcn_hyper_rule { both_counters, timer };  // rp.hyper_increase
enum class dcqcn_alpha_rule { per_cnp, per_window };   // rp.alpha_update

// The parameters as the state machine reads them, without defaults: the reaction point fills
// them from its parameters (dcqcn_rp.cpp), whose defaults come from rp.profile
// (dcqcn_profile::rp_config gives a profile's at a line rate).
struct dcqcn_rp_config {
  double g{};
  uint64_t byte_counter{};   // B, bytes
  uint32_t fast_recovery{};  // F
  double rai{}, rhai{};      // bit/s
  double min_rate{};         // bit/s
  double line_rate{};        // bit/s: the cap, and the start rate
  // The rules (docs/models/dcqcn.md, "Fidelity").
  bool clamp_target{};          // rp.clamp_target_rate
  bool clamp_after_time_inc{};  // rp.clamp_target_rate_after_time_inc
  dcqcn_hyper_rule hyper{};
  bool hyper_step_fixed{};  // rp.hyper_step: fixed R_HAI, or R_HAI x the stages past F
  dcqcn_alpha_rule alpha_update{};
  bool cut_after_alpha_update{};  // rp.cut_alpha (per-cnp only)
};

class dcqcn_rp_state {
 public:
  enum class stage { fast_recovery, additive, hyper };

  dcqcn_rp_state(double line_rate, double alpha0) : rc_(line_rate), rt_(line_rate), alpha_(alpha0) {}

  // A CNP cut at once: the paper's rule.
  void on_cnp(const dcqcn_rp_config& c) {
    note_cnp(c);
    cut(c);
  }
  // A CNP arrived (the alpha window's flag); the cut may come later (rp.rate_decrease_interval).
  void note_cnp(const dcqcn_rp_config& c) {
    if (c.alpha_update == dcqcn_alpha_rule::per_window) cnp_in_window_ = true;
  }
  void cut(const dcqcn_rp_config& c) {
    if (c.clamp_target || (c.clamp_after_time_inc && time_inc_since_cut_)) rt_ = rc_;
    const bool per_cnp = c.alpha_update == dcqcn_alpha_rule::per_cnp;
    if (per_cnp && c.cut_after_alpha_update) raise_alpha(c);
    rc_ = std::max(rc_ * (1 - alpha_ / 2), c.min_rate);
    if (per_cnp && !c.cut_after_alpha_update) raise_alpha(c);
    bytes_ = 0;
    timer_stage_ = byte_stage_ = 0;
    time_inc_since_cut_ = false;
  }
  // TCD's "hold" (dcqcn-tcd, docs/models/tcd.md): no cut and no alpha change, but the recovery
  // restarts from here: rt <- rc, byte counter and both stage counts reset (the timers restart,
  // by the caller). The rate stays until the next increase event.
  void on_hold() {
    rt_ = rc_;
    bytes_ = 0;
    timer_stage_ = byte_stage_ = 0;
  }
  // k alpha-timer expiries in a row (k > 1: the caller caught up on a stretch without timers;
  // a per-window CNP flag counts in the first of them).
  void on_alpha_timer(const dcqcn_rp_config& c, uint64_t k = 1) {
    if (k == 0) return;
    if (c.alpha_update == dcqcn_alpha_rule::per_window && cnp_in_window_) {
      raise_alpha(c);
      cnp_in_window_ = false;
      --k;
    }
    alpha_ *= k == 1 ? 1 - c.g : std::pow(1 - c.g, static_cast<double>(k));
  }
  // The alpha periods that passed while the flow's timers slept, caught up at its next CNP.
  void on_missed_alpha_periods(const dcqcn_rp_config& c, uint64_t k) { on_alpha_timer(c, k); }
  void on_rate_timer(const dcqcn_rp_config& c) {
    ++timer_stage_;
    time_inc_since_cut_ = true;
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
  bool cnp_in_window() const { return cnp_in_window_; }
  stage last_stage() const { return last_stage_; }

 private:
  void raise_alpha(const dcqcn_rp_config& c) { alpha_ = (1 - c.g) * alpha_ + c.g; }
  void increase(const dcqcn_rp_config& c) {
    uint32_t hi = std::max(timer_stage_, byte_stage_), lo = std::min(timer_stage_, byte_stage_);
    const uint32_t f = c.fast_recovery;
    if (c.hyper == dcqcn_hyper_rule::timer) {  // the timer's stage alone: F steps, one additive, then hyper
      hi = timer_stage_;
      lo = timer_stage_ > f ? timer_stage_ - 1 : 0;
    }
    if (hi <= f) {
      last_stage_ = stage::fast_recovery;
    } else if (lo <= f) {
      last_stage_ = stage::additive;
      rt_ += c.rai;
    } else {
      last_stage_ = stage::hyper;
      rt_ += c.hyper_step_fixed ? c.rhai : static_cast<double>(lo - f) * c.rhai;
    }
    rt_ = std::min(rt_, c.line_rate);
    rc_ = std::min((rt_ + rc_) / 2, c.line_rate);
  }

  double rc_, rt_, alpha_;
  uint64_t bytes_ = 0;
  uint32_t timer_stage_ = 0, byte_stage_ = 0;
  bool time_inc_since_cut_ = false;  // a rate-timer event since the last cut
  bool cnp_in_window_ = false;       // per-window alpha: a CNP since the last window closed
  stage last_stage_ = stage::fast_recovery;
};

}  // namespace sluice
