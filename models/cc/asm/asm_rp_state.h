// The ASM reaction point as a pure state machine (no SystemC): one rate limiter per flow, its rate
// R and the CPID of the congestion point that caused its last decrease. On a feedback carrying the
// 8-bit fields (qoff, qdelta) and a CPID (docs/models/asm.md, "Rate law"):
//   Qoff, Qdelta = the fields decoded (asm_field::decode; qoff x qoff_quantum near 0)  (bytes)
//   sigma = Qoff + w Qdelta                                            (the boundary function)
//   (a, b) = (alpha1, beta1) if sigma x Qoff >= 0   (towards the line from the Qoff side)
//            (alpha2, beta2) if sigma x Qoff <  0   (the Qdelta-dominated wedge: damp the rate)
//   k = boost if |sigma| > sigma_band (far from the line: approaching it) or |Qoff| < qoff_band
//       (near the stable point), else 1 (sliding along the line)
//   e = k (a Qoff + b Qdelta),  clamped to [-max_increase, max_decrease]
//   e > 0: R <- max(R (1 - e), min_rate); remember the CPID
//   e < 0: only if the CPID is the remembered one:
//          R <- min(R - e (R + fairness x line_rate) / (1 + fairness), line_rate)
// and, between feedbacks, the active increase: once limited, every active_interval bytes' time at
// the line rate, R <- min(R + active_increase x line_rate, line_rate), unless the last feedback's
// Qoff was above sigma_band (the queue far above its set-point: an overload the law's decreases
// must drain, however many flows drift) and the flow has not since sent active_interval bytes
// (a CP sampling every S bytes reaches a flow once per S bytes it sends, whatever its rate).
// The move on a feedback is a fraction of the sending rate (of the line rate, in part, for an
// increase), so the slope of the trajectory in the (queue, rate / capacity) plane does not depend
// on the link speed. The active increase is the same for every flow per unit time while the
// decreases, sampled by bytes, reach a flow in proportion to its rate and cut it in proportion to
// its rate: additive increase against multiplicative decrease, so the shares converge (a pure
// fraction of R on every move would keep any ratio). Rates in bit/s.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/cc/asm/asm_field.h"

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations'.
struct asm_rp_config {
  double w{};                // weight of Qdelta in sigma (scheme-wide, as at the CP)
  double qoff_quantum{};     // bytes per step of the Qoff field (scheme-wide)
  double qdelta_quantum{};   // bytes per step of the Qdelta field (scheme-wide)
  double alpha1{}, beta1{};  // 1/byte: gains where sigma and Qoff agree in sign
  double alpha2{}, beta2{};  // 1/byte: gains where they disagree
  double boost{};            // gain factor far from the line and near the stable point
  double sigma_band{};       // bytes: |sigma| above this is "far from the line"
  double qoff_band{};        // bytes: |Qoff| below this is "near the stable point"
  double max_decrease{};     // one feedback cuts by at most this fraction
  double max_increase{};     // one feedback raises by at most this fraction
  double fairness{};         // weight of the line rate in an increase's base (0: the rate alone)
  double min_rate{};         // bit/s
  double line_rate{};        // bit/s: the cap, and the start rate
  double active_increase{};  // fraction of the line rate added every active interval once limited
  double active_bytes{};     // bytes: the active interval is their time at the line rate
};

// Which coefficient set a feedback used: the variable structure of the law.
enum class asm_region { on_line, agree, disagree };

struct asm_law {
  double sigma = 0;  // bytes
  asm_region region = asm_region::on_line;
  bool boosted = false;
  double e = 0;  // the fraction of the rate removed (negative: added), after the clamp
};

// The law alone: what a feedback (qoff, qdelta) asks of a flow, before CPID filtering.
inline asm_law asm_rate_law(int8_t qoff, int8_t qdelta, const asm_rp_config& c) {
  asm_law l;
  const double q_off = asm_field::decode(qoff, c.qoff_quantum), q_delta = asm_field::decode(qdelta, c.qdelta_quantum);
  l.sigma = q_off + c.w * q_delta;
  if (l.sigma == 0) return l;
  const bool disagree = (l.sigma > 0 && q_off < 0) || (l.sigma < 0 && q_off > 0);
  l.region = disagree ? asm_region::disagree : asm_region::agree;
  const double a = disagree ? c.alpha2 : c.alpha1, b = disagree ? c.beta2 : c.beta1;
  l.boosted = std::fabs(l.sigma) > c.sigma_band || std::fabs(q_off) < c.qoff_band;
  const double k = l.boosted ? c.boost : 1.0;
  l.e = std::clamp(k * (a * q_off + b * q_delta), -c.max_increase, c.max_decrease);
  return l;
}

class asm_rp_state {
 public:
  enum class result { none, decrease, increase, ignored };  // ignored: an increase from another CPID

  explicit asm_rp_state(double line_bps = 0) : rate_(line_bps) {}

  result on_feedback(int8_t qoff, int8_t qdelta, uint64_t cpid, const asm_rp_config& c) {
    last_ = asm_rate_law(qoff, qdelta, c);
    overload_ = asm_field::decode(qoff, c.qoff_quantum) > c.sigma_band;
    sent_since_feedback_ = 0;
    if (last_.e > 0) {
      if (!limited_) rate_ = c.line_rate;  // the first decrease starts from the line rate
      rate_ = std::max(rate_ * (1.0 - last_.e), c.min_rate);
      cpid_ = cpid;
      limited_ = true;
      return result::decrease;
    }
    if (last_.e == 0) return result::none;
    if (!limited_ || cpid != cpid_) return result::ignored;
    const double base = (rate_ + c.fairness * c.line_rate) / (1.0 + c.fairness);
    rate_ = std::min(rate_ - last_.e * base, c.line_rate);
    return result::increase;
  }

  // The active increase due by `now_ps` (whole intervals since the last one counted); true if the
  // rate moved. Called before each feedback and each frame sent. Its clock starts at the first
  // call after the first decrease (a flow never limited is at the line rate) and runs on while
  // the increase is held off the line (no steps saved up).
  bool on_clock(uint64_t now_ps, const asm_rp_config& c) {
    if (!limited_) return false;
    if (active_from_ps_ == not_started) active_from_ps_ = now_ps;
    if (c.active_increase <= 0 || c.line_rate <= 0 || now_ps <= active_from_ps_) return false;
    const double interval_ps = c.active_bytes * 8 / c.line_rate * 1e12;
    const auto steps = static_cast<uint64_t>(static_cast<double>(now_ps - active_from_ps_) / interval_ps);
    if (steps == 0) return false;
    active_from_ps_ += static_cast<uint64_t>(static_cast<double>(steps) * interval_ps);
    if (overload_ && sent_since_feedback_ < c.active_bytes) return false;
    const double before = rate_;
    rate_ = std::min(rate_ + static_cast<double>(steps) * c.active_increase * c.line_rate, c.line_rate);
    return rate_ != before;
  }

  // The flow sent a frame of `bytes`.
  void on_sent(uint32_t bytes) { sent_since_feedback_ += bytes; }

  double rate() const { return rate_; }
  bool limited() const { return limited_; }
  uint64_t cpid() const { return cpid_; }  // the CP of the last decrease (valid when limited)
  const asm_law& last() const { return last_; }

 private:
  double rate_;
  bool limited_ = false;
  uint64_t cpid_ = 0;
  static constexpr uint64_t not_started = ~uint64_t{0};
  uint64_t active_from_ps_ = not_started;  // the active increase's clock: the last interval counted
  bool overload_ = false;                  // the last feedback's Qoff was above sigma_band
  double sent_since_feedback_ = 0;         // bytes
  asm_law last_;
};

}  // namespace sluice
