// The fixed point of DCQCN's fluid model (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay: Lessons
// Learnt from Analysis of DCQCN and TIMELY", CoNEXT'16, Theorem 1): N flows at C/N each, the
// marking probability p* the root of
//     a^2 alpha / ((b + d)(c + e)) = tau^2 R_AI R_C
// with a = 1 - (1-p)^(tau R_C), alpha = 1 - (1-p)^(tau' R_C), b = p / ((1-p)^-B - 1),
// c = (1-p)^(F B) b, d = p / ((1-p)^(-T R_C) - 1), e = (1-p)^(F T R_C) d, rates in packets per
// second and B in packets; and the queue q* = Kmin + p*/Pmax (Kmax - Kmin) (while p* <= Pmax).
// The left side grows with p (the paper's proof), so bisection finds the root.
// tools/dcqcn_fluid.py computes the same for docs/models/dcqcn.md. cnp_holdoff: the same balance
// with the CNP hold-off of the paper's NP and RP (below).
#pragma once
#include <algorithm>
#include <cmath>

namespace sluice::test {

struct dcqcn_fluid_params {
  double capacity_bps = 40e9;
  int flows = 2;
  double packet_bytes = 1000;                            // wire bytes per frame
  double kmin = 5000, kmax = 200000, pmax = 0.01;        // bytes, bytes, probability
  double tau = 50e-6, tau_prime = 55e-6, timer = 55e-6;  // CNP interval, alpha timer, rate timer (s)
  double byte_counter = 10e6;                            // bytes
  double fast_recovery = 5;
  double rai_bps = 40e6;
  // The reaction point's CNP hold-off as the paper's NP and RP run it, instead of the model's
  // idealisation: marks come at lambda = p R_C, CNPs at r = lambda / (1 + lambda tau) (tau, then
  // the wait for the next mark), and a cut and the timer and byte-counter resets come with each
  // CNP. So the model's cut probability per tau window a = 1 - (1-p)^(tau R_C) becomes r tau,
  // its resets at every mark become resets at r (p -> r / R_C in b, c, d, e), and its alpha
  // 1 - (1-p)^(tau' R_C) becomes alpha's mean field with a rise of g(1 - alpha) per CNP and a
  // decay of g alpha per tau': r tau' / (1 + r tau'). docs/models/dcqcn.md, "Fidelity".
  bool cnp_holdoff = false;
};

struct dcqcn_fixed_point {
  double p, queue_bytes;
};

inline dcqcn_fixed_point dcqcn_fluid_fixed_point(const dcqcn_fluid_params& m) {
  const double rc = m.capacity_bps / m.flows / (8 * m.packet_bytes);  // packets/s per flow
  const double b_pk = m.byte_counter / m.packet_bytes, rai = m.rai_bps / (8 * m.packet_bytes);
  auto excess = [&](double p_mark) {
    const double r = p_mark * rc / (1 + p_mark * rc * m.tau);  // CNPs per second with the hold-off
    const double p = m.cnp_holdoff ? r / rc : p_mark;          // resets per packet
    const double q = 1 - p;
    const double a = m.cnp_holdoff ? r * m.tau : 1 - std::pow(q, m.tau * rc);
    const double alpha = m.cnp_holdoff ? r * m.tau_prime / (1 + r * m.tau_prime) : 1 - std::pow(q, m.tau_prime * rc);
    const double b = p / (std::pow(q, -b_pk) - 1), c = std::pow(q, m.fast_recovery * b_pk) * b;
    const double d = p / (std::pow(q, -m.timer * rc) - 1), e = std::pow(q, m.fast_recovery * m.timer * rc) * d;
    return a * a * alpha / ((b + d) * (c + e)) - m.tau * m.tau * rai * rc;
  };
  double lo = 1e-12, hi = 0.5;
  for (int i = 0; i < 200; ++i) {
    const double mid = std::sqrt(lo * hi);
    (excess(mid) > 0 ? hi : lo) = mid;
  }
  const double p = std::sqrt(lo * hi);
  return {p, m.kmin + std::min(p, m.pmax) / m.pmax * (m.kmax - m.kmin)};
}

}  // namespace sluice::test
