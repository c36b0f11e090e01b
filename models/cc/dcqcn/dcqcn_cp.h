// DCQCN's congestion point as a pure function: RED-style ECN marking on the egress queue
// (Zhu et al., SIGCOMM'15; docs/models/dcqcn.md). The registered policy (dcqcn_cp.cpp) feeds it
// the queue depth of each departing data frame and a uniform draw from its own random stream.
#pragma once
#include <cstdint>

namespace sluice {

struct red_marking {
  uint64_t kmin = 5000, kmax = 200000;  // bytes
  double pmax = 0.01;
  // Marking probability at queue depth q: 0 up to Kmin, Pmax * (q - Kmin) / (Kmax - Kmin) up to
  // Kmax, 1 above Kmax. Kmin = Kmax is a step: 0 up to K, 1 above.
  double probability(uint64_t q) const {
    if (q <= kmin) return 0.0;
    if (q > kmax) return 1.0;
    return pmax * static_cast<double>(q - kmin) / static_cast<double>(kmax - kmin);
  }
  // Mark with draw u (uniform in [0, 1)).
  bool mark(uint64_t q, double u) const { return u < probability(q); }
};

}  // namespace sluice
