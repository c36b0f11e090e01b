// TIMELY's reaction point as a pure state machine (Mittal et al., SIGCOMM'15, Algorithm 1;
// Zhu et al., CoNEXT'16; docs/models/timely.md). Rates in bit/s, times in ps. One call per
// completion event (an RTT sample); each update runs:
//
//   new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt   (the first sample: diff 0)
//   rtt_diff     = (1 - alpha) rtt_diff + alpha new_rtt_diff
//   gradient     = rtt_diff / min_rtt
//   count        = consecutive updates with gradient <= 0 (this one included; a gradient
//                  > 0 resets it to 0)
//   new_rtt < T_low:    rate += delta
//   new_rtt > T_high:   rate *= 1 - beta (1 - T_high / new_rtt)
//   gradient <= 0:      rate += N delta,  N = hai_factor if count >= hai_threshold, else 1
//   gradient > 0:       rate *= 1 - beta gradient
//   rate clamped to [min_rate, line_rate]
//
// Which completions update (cadence::min_rtt, the paper profile): on average one per
// tau* = max(segment time, min_rtt) (CoNEXT'16 eq. 14). An update is due at `due`; a completion
// before it is skipped (no EWMA, no count); an update moves `due` on by min_rtt from where it
// was, not from the completion's time (the lateness is carried over, if under one min_rtt), so
// completions every s < min_rtt update on average once per min_rtt, not once per
// ceil(min_rtt / s) s, and completions every s >= min_rtt update every time.
//
// variant::patched (CoNEXT'16 "patched TIMELY", its unique fair fixed point): between T_low and
// T_high the gradient test becomes a weight w(g) = clamp(2g + 1/2, 0, 1) and
//   rate = delta (1 - w) + rate (1 - patched_beta w (new_rtt - rtt_ref) / rtt_ref).
//
// profile::hpcc_sim (the HPCC ns-3 simulator's RdmaHw::UpdateRateTimely): one update per RTT
// (an ACK past the byte the flow had sent at the last update; the first ACK only records its
// RTT), any increase (below T_low or gradient <= 0) adds hai_step instead of delta once the
// previous hai_threshold updates in a row increased, any decrease resets that count, and a
// gradient cut never goes below zero before the floor.
#pragma once
#include <algorithm>
#include <cstdint>

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations' (timely_rp.cpp).
struct timely_rp_config {
  enum class variant_t { original, patched };
  enum class profile_t { paper, hpcc_sim };
  uint64_t t_low_ps{};
  uint64_t t_high_ps{};
  double alpha{};            // EWMA weight of the newest RTT difference
  double beta{};             // multiplicative decrease factor
  double delta{};            // additive step, bit/s
  uint64_t min_rtt_ps{};     // gradient normalizer and update interval
  uint32_t hai_threshold{};  // consecutive gradient <= 0 updates before HAI
  double hai_factor{};       // N
  double min_rate{};         // bit/s (the caller derives it from the line rate)
  double line_rate{};        // bit/s: the cap
  variant_t variant{};
  uint64_t rtt_ref_ps{};  // patched: the reference RTT
  double patched_beta{};  // patched: its decrease factor
  profile_t profile{};
  double hai_step{};  // hpcc_sim: the hyper step R_HAI, bit/s
};

class timely_rp_state {
 public:
  enum class branch { none, low, high, increase, hai, decrease, patched };

  explicit timely_rp_state(double start_rate) : rate_(start_rate) {}

  // A completion at now_ps with this RTT sample; `acked` is the byte offset the ACK
  // acknowledges and `sent` the flow's next offset to send (both read by the hpcc_sim cadence
  // only). Returns the branch taken (none: skipped).
  branch on_rtt(uint64_t new_rtt_ps, uint64_t now_ps, const timely_rp_config& c, uint64_t acked = 0,
                uint64_t sent = 0) {
    if (!due(new_rtt_ps, now_ps, c, acked, sent)) return branch::none;
    const double rtt = static_cast<double>(new_rtt_ps);
    const double new_diff = have_prev_ ? rtt - prev_rtt_ : 0.0;
    prev_rtt_ = rtt;
    have_prev_ = true;
    ++samples_;
    rtt_diff_ = (1 - c.alpha) * rtt_diff_ + c.alpha * new_diff;
    gradient_ = rtt_diff_ / static_cast<double>(c.min_rtt_ps);
    negatives_ = gradient_ <= 0 ? negatives_ + 1 : 0;
    if (c.profile == timely_rp_config::profile_t::hpcc_sim)
      hpcc_step(new_rtt_ps, c);
    else
      paper_step(new_rtt_ps, c);
    rate_ = std::clamp(rate_, c.min_rate, c.line_rate);
    return last_;
  }

  double rate() const { return rate_; }
  double rtt_diff() const { return rtt_diff_; }  // ps
  double gradient() const { return gradient_; }
  uint32_t negatives() const { return negatives_; }
  uint32_t increases() const { return increases_; }  // hpcc_sim: increases in a row
  uint64_t samples() const { return samples_; }      // completions that updated the rate
  uint64_t due_ps() const { return due_ps_; }        // min_rtt cadence: the next update's time
  branch last_branch() const { return last_; }
  // patched TIMELY's weight of the gradient: 0 up to -1/4, 1 from 1/4, linear between.
  static double weight(double g) { return std::clamp(2 * g + 0.5, 0.0, 1.0); }

 private:
  bool due(uint64_t rtt, uint64_t now, const timely_rp_config& c, uint64_t acked, uint64_t sent) {
    if (c.profile == timely_rp_config::profile_t::hpcc_sim) {
      if (!recorded_) {  // the first ACK: its RTT is the reference of the first update
        recorded_ = true;
        prev_rtt_ = static_cast<double>(rtt);
        have_prev_ = true;
        last_seq_ = sent;
        return false;
      }
      if (acked <= last_seq_) return false;
      last_seq_ = std::max(last_seq_, sent);
      return true;
    }
    const uint64_t m = c.min_rtt_ps;
    if (samples_ && now < due_ps_) return false;
    // Lateness under one interval is carried over; a completion a whole interval or more late
    // (a gap in the ACKs) starts afresh, so that no banked updates follow in a burst.
    due_ps_ = (samples_ && now - due_ps_ < m ? due_ps_ : now) + m;
    return true;
  }
  void paper_step(uint64_t new_rtt_ps, const timely_rp_config& c) {
    const double rtt = static_cast<double>(new_rtt_ps);
    if (new_rtt_ps < c.t_low_ps) {
      last_ = branch::low;
      rate_ += c.delta;
    } else if (new_rtt_ps > c.t_high_ps) {
      last_ = branch::high;
      rate_ *= 1 - c.beta * (1 - static_cast<double>(c.t_high_ps) / rtt);
    } else if (c.variant == timely_rp_config::variant_t::patched) {
      last_ = branch::patched;
      const double w = weight(gradient_);
      const double ref = static_cast<double>(c.rtt_ref_ps);
      rate_ = c.delta * (1 - w) + rate_ * (1 - c.patched_beta * w * (rtt - ref) / ref);
    } else if (gradient_ <= 0) {
      const bool hai = negatives_ >= c.hai_threshold;
      last_ = hai ? branch::hai : branch::increase;
      rate_ += (hai ? c.hai_factor : 1.0) * c.delta;
    } else {
      last_ = branch::decrease;
      rate_ *= 1 - c.beta * gradient_;
    }
  }
  void hpcc_step(uint64_t new_rtt_ps, const timely_rp_config& c) {
    double cut = -1;  // the decrease's factor; < 0: an increase
    if (new_rtt_ps < c.t_low_ps) {
      last_ = branch::low;
    } else if (new_rtt_ps > c.t_high_ps) {
      last_ = branch::high;
      cut = 1 - c.beta * (1 - static_cast<double>(c.t_high_ps) / static_cast<double>(new_rtt_ps));
    } else if (gradient_ <= 0) {
      last_ = branch::increase;
    } else {
      last_ = branch::decrease;
      cut = std::max(0.0, 1 - c.beta * gradient_);
    }
    if (cut >= 0) {
      rate_ *= cut;
      increases_ = 0;
      return;
    }
    const bool hai = increases_ >= c.hai_threshold;
    if (hai) last_ = branch::hai;
    rate_ += hai ? c.hai_step : c.delta;
    ++increases_;
  }

  double rate_;
  double prev_rtt_ = 0, rtt_diff_ = 0, gradient_ = 0;
  uint32_t negatives_ = 0, increases_ = 0;
  uint64_t samples_ = 0;    // completions that updated the rate
  uint64_t due_ps_ = 0;     // min_rtt cadence: no update before this
  bool have_prev_ = false;  // prev_rtt_ holds a sample
  bool recorded_ = false;   // hpcc_sim: the first ACK's RTT is recorded
  uint64_t last_seq_ = 0;   // hpcc_sim: the flow's next offset at the last update
  branch last_ = branch::none;
};

}  // namespace sluice
