// TIMELY's reaction point as a pure state machine (Mittal et al., SIGCOMM'15, Algorithm 1;
// DEFAULTS.md 2.2; docs/models/timely.md). Rates in bit/s, times in ps. One call per
// completion event (an RTT sample). A completion less than min_rtt after the last rate update
// is skipped altogether (the update interval is max(segment time, min_rtt), as in the CoNEXT'16
// model of TIMELY: "rate updates are scaled by D_minRTT to limit the update frequency"); the
// others run:
//
//   new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt   (the first sample: diff 0)
//   rtt_diff     = (1 - alpha) rtt_diff + alpha new_rtt_diff
//   gradient     = rtt_diff / min_rtt
//   count        = consecutive completions with gradient <= 0 (this one included; a gradient
//                  > 0 resets it to 0)
//   new_rtt < T_low:    rate += delta
//   new_rtt > T_high:   rate *= 1 - beta (1 - T_high / new_rtt)
//   gradient <= 0:      rate += N delta,  N = hai_factor if count >= hai_threshold, else 1
//   gradient > 0:       rate *= 1 - beta gradient
//   rate clamped to [min_rate, line_rate]
#pragma once
#include <algorithm>
#include <cstdint>

namespace sluice {

struct timely_rp_config {
  uint64_t t_low_ps = 50'000'000;    // 50 us
  uint64_t t_high_ps = 500'000'000;  // 500 us
  double alpha = 0.875;              // EWMA weight of the newest RTT difference
  double beta = 0.8;                 // multiplicative decrease factor
  double delta = 10e6;               // additive step, bit/s
  uint64_t min_rtt_ps = 20'000'000;  // gradient normalizer, 20 us
  uint32_t hai_threshold = 5;        // consecutive gradient <= 0 completions before HAI
  double hai_factor = 5;             // N
  double min_rate = 0;               // bit/s (the caller derives it from the line rate)
  double line_rate = 40e9;           // bit/s: the cap, and the start rate
};

class timely_rp_state {
 public:
  enum class branch { none, low, high, increase, hai, decrease };

  explicit timely_rp_state(double start_rate) : rate_(start_rate) {}

  // A completion at now_ps with this RTT sample; returns the branch taken (none: skipped).
  branch on_rtt(uint64_t new_rtt_ps, uint64_t now_ps, const timely_rp_config& c) {
    if (samples_ && now_ps - last_update_ps_ < c.min_rtt_ps) return branch::none;
    last_update_ps_ = now_ps;
    const double rtt = static_cast<double>(new_rtt_ps);
    const double new_diff = samples_ ? rtt - prev_rtt_ : 0.0;
    prev_rtt_ = rtt;
    ++samples_;
    rtt_diff_ = (1 - c.alpha) * rtt_diff_ + c.alpha * new_diff;
    gradient_ = rtt_diff_ / static_cast<double>(c.min_rtt_ps);
    negatives_ = gradient_ <= 0 ? negatives_ + 1 : 0;
    if (new_rtt_ps < c.t_low_ps) {
      last_ = branch::low;
      rate_ += c.delta;
    } else if (new_rtt_ps > c.t_high_ps) {
      last_ = branch::high;
      rate_ *= 1 - c.beta * (1 - static_cast<double>(c.t_high_ps) / rtt);
    } else if (gradient_ <= 0) {
      const bool hai = negatives_ >= c.hai_threshold;
      last_ = hai ? branch::hai : branch::increase;
      rate_ += (hai ? c.hai_factor : 1.0) * c.delta;
    } else {
      last_ = branch::decrease;
      rate_ *= 1 - c.beta * gradient_;
    }
    rate_ = std::clamp(rate_, c.min_rate, c.line_rate);
    return last_;
  }

  double rate() const { return rate_; }
  double rtt_diff() const { return rtt_diff_; }  // ps
  double gradient() const { return gradient_; }
  uint32_t negatives() const { return negatives_; }
  uint64_t samples() const { return samples_; }  // completions that updated the rate
  branch last_branch() const { return last_; }

 private:
  double rate_;
  double prev_rtt_ = 0, rtt_diff_ = 0, gradient_ = 0;
  uint32_t negatives_ = 0;
  uint64_t samples_ = 0;  // completions that updated the rate
  uint64_t last_update_ps_ = 0;
  branch last_ = branch::none;
};

}  // namespace sluice
