// TIMELY's rule and parameter profiles (timely.profile at the sender, np.profile at the
// receiver): the paper's and the HPCC ns-3 simulator's. The source of every value is in
// docs/models/timely.md ("Fidelity"). A profile gives defaults: a parameter the scenario or
// --set gives keeps its value.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

namespace sluice {

struct timely_profile {
  const char* name;
  // Reaction point (timely.*). Times in ps, rates in bit/s.
  uint64_t t_low_ps, t_high_ps, min_rtt_ps;
  double alpha, beta;
  double delta, hai_step;  // at line rate `rate_reference` (0: absolute), scaled in proportion to the line rate
  double rate_reference;
  uint32_t hai_threshold;
  double hai_factor;
  double min_rate_fraction;  // of the line rate; or, if min_rate > 0, min_rate / line rate
  double min_rate;           // bit/s, 0: min_rate_fraction
  // Notification point (np.*): the receiver's ACKs.
  bool ack_every_frame;  // every data frame, on the fabric's highest class (else one per segment, data's class)
  double delta_at(double line_rate) const { return rate_reference > 0 ? delta * line_rate / rate_reference : delta; }
  double hai_step_at(double line_rate) const {
    return rate_reference > 0 ? hai_step * line_rate / rate_reference : hai_step;
  }
  // timely.min_rate is a fraction of the line rate: an absolute floor becomes the fraction it is
  // of this line rate (at most 1).
  double min_fraction_at(double line_rate) const {
    return min_rate > 0 && line_rate > 0 ? std::min(1.0, min_rate / line_rate) : min_rate_fraction;
  }
};

inline constexpr uint64_t timely_us = 1'000'000;  // ps

// paper: SIGCOMM'15 Algorithm 1 and §6, as CoNEXT'16 quotes them; the floor from ns3-rdma.
inline constexpr timely_profile timely_paper{
    "paper", 50 * timely_us, 500 * timely_us, 20 * timely_us, 0.875, 0.8, 10e6, 50e6, 0, 5, 5.0, 0.01, 0, false};
// hpcc-sim: the HPCC ns-3 simulator (rdma-hw.cc's TIMELY attributes, run.py "timely"): delta
// 10 Mb/s and the hyper step 50 Mb/s per 10 Gb/s of line rate, a 1 Gb/s floor, every packet
// ACKed on a high-priority class.
inline constexpr timely_profile timely_hpcc_sim{
    "hpcc-sim", 50 * timely_us, 500 * timely_us, 20 * timely_us, 0.875, 0.8, 10e6, 50e6, 10e9, 5, 5.0, 0.01, 1e9, true};

// The profile of that name; null if none.
inline const timely_profile* timely_profile_named(const std::string& name) {
  for (const timely_profile* p : {&timely_paper, &timely_hpcc_sim})
    if (name == p->name) return p;
  return nullptr;
}

}  // namespace sluice
