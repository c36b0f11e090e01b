// The ECM reaction point as a pure state machine (no SystemC): one rate limiter per flow, its
// rate R and the CPID it is associated with (the tutorial's "ECM" slide, [L2CC-tutorial]).
//   Fb < 0 (negative BCN, any CP):  R <- max(R x max(1 + Gd Fb, 1 - max_decrease), R_min);
//                                    associate with the BCN's CPID (the most recent negative)
//   Fb > 0 (positive BCN):           only from the associated CPID (else ignored: a false
//                                    positive); R <- min(R + Gi Ru, line rate)
//   R back at the line rate:         release the limiter and the association (frames untagged)
// While limited, the flow's data frames carry the associated CPID's tag (bcn::tag_of).
// Fb in bytes; rates in bit/s.
#pragma once
#include <algorithm>
#include <cstdint>

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations' (ecm_rp.cpp).
struct ecm_rp_config {
  double gd{};            // per byte of -Fb
  double max_decrease{};  // one BCN cuts by at most this fraction
  double gi{};            // increase gain
  double ru{};            // rate unit, bit/s
  double min_rate{};      // bit/s
  double line_rate{};     // bit/s: the cap, and the start rate
};

class ecm_rp_state {
 public:
  enum class result { ignored, cut, increase, released };

  explicit ecm_rp_state(double line_bps = 0) : rate_(line_bps) {}

  result on_bcn(double fb, uint64_t cpid, const ecm_rp_config& c) {
    if (fb < 0) {
      if (!limited_) rate_ = c.line_rate;
      rate_ = std::max(rate_ * std::max(1.0 + c.gd * fb, 1.0 - c.max_decrease), c.min_rate);
      limited_ = true;
      cpid_ = cpid;
      return result::cut;
    }
    if (fb == 0 || !limited_ || cpid != cpid_) return result::ignored;
    rate_ = std::min(rate_ + c.gi * c.ru, c.line_rate);
    if (rate_ < c.line_rate) return result::increase;
    limited_ = false;
    cpid_ = 0;
    return result::released;
  }

  bool limited() const { return limited_; }
  double rate() const { return rate_; }
  uint64_t cpid() const { return cpid_; }  // associated CP (0: none)

 private:
  double rate_;
  bool limited_ = false;
  uint64_t cpid_ = 0;
};

}  // namespace sluice
