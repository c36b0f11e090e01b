// PCN's reaction point as a pure state machine (Cheng et al., NSDI'20, section 5.3, Algorithm 1;
// docs/models/pcn.md). Rates in bit/s. A flow starts at the line rate with w = w_min.
//
//   CNP with ECN (congested):  rate <- min(rate, recRate x (1 - w_min)),  w <- w_min
//   CNP without ECN:           rate <- rate x (1 - w) + lineRate x w,     w <- w x (1 - w) + w_max x w
//
// The increase is gentle at first (w = w_min) and grows towards w_max with each unmarked CNP in a
// row: with w_min = 1/128 and w_max = 1/2 a flow from 0 gains < 10 % of the line rate in 5 CNPs
// and > 95 % in 15. The registered policy (pcn_rp.cpp) decodes the CNP and floors the rate at
// rp.min_rate (the paper gives no floor; a CNP's rate of 0 Mb/s would otherwise stop the flow).
#pragma once
#include <algorithm>

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations' (pcn_rp.cpp).
struct pcn_rp_config {
  double w_min{}, w_max{};
  double line_rate{};  // bit/s
  double min_rate{};   // bit/s
};

class pcn_rp_state {
 public:
  pcn_rp_state(double start_rate, double w) : rate_(start_rate), w_(w) {}

  void on_cnp(const pcn_rp_config& c, bool congested, double rec_rate) {
    if (congested) {
      rate_ = std::min(rate_, rec_rate * (1 - c.w_min));
      w_ = c.w_min;
    } else {
      rate_ = std::min(rate_ * (1 - w_) + c.line_rate * w_, c.line_rate);
      w_ = w_ * (1 - w_) + c.w_max * w_;
    }
    rate_ = std::max(rate_, c.min_rate);
  }
  double rate() const { return rate_; }
  double w() const { return w_; }

 private:
  double rate_, w_;
};

}  // namespace sluice
