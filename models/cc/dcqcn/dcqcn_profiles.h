// DCQCN's rule and parameter profiles (rp.profile, np.profile): what the paper, ConnectX NICs and
// the HPCC ns-3 simulator each do. The source of every value is in docs/models/dcqcn.md
// ("Fidelity"). A profile gives defaults: a parameter the scenario or --set gives keeps its value.
#pragma once
#include <cstdint>
#include <string>

#include "models/cc/dcqcn/dcqcn_rp.h"

namespace sluice {

struct dcqcn_profile {
  const char* name;
  // Reaction point (rp.*). Times in ps, rates in bit/s.
  double g, alpha_init;
  uint64_t alpha_timer_ps, timer_ps, rate_decrease_interval_ps;
  uint64_t byte_counter;  // bytes, 0 off
  uint32_t fast_recovery;
  double rai, rhai;  // at line rate `rate_reference` (0: absolute), scaled in proportion to the line rate
  double rate_reference;
  double min_rate;
  bool clamp_target, clamp_after_time_inc;
  dcqcn_hyper_rule hyper;
  bool hyper_step_fixed;
  dcqcn_alpha_rule alpha_update;
  bool cut_after_alpha_update;
  // Notification point (np.*).
  uint64_t cnp_interval_ps;  // 0: a CNP for every CE-marked frame
  bool transport_acks;       // the receiver acknowledges every data frame, on the fabric's highest class
  double rai_at(double line_rate) const { return rate_reference > 0 ? rai * line_rate / rate_reference : rai; }
  double rhai_at(double line_rate) const { return rate_reference > 0 ? rhai * line_rate / rate_reference : rhai; }
  // The reaction point's configuration under this profile at a line rate.
  dcqcn_rp_config rp_config(double line_rate) const {
    return {g,
            byte_counter,
            fast_recovery,
            rai_at(line_rate),
            rhai_at(line_rate),
            min_rate,
            line_rate,
            clamp_target,
            clamp_after_time_inc,
            hyper,
            hyper_step_fixed,
            alpha_update,
            cut_after_alpha_update};
  }
};

inline constexpr uint64_t dcqcn_us = 1'000'000;  // ps

// paper: SIGCOMM'15 and its CoNEXT'16 fluid model (R_HAI, min rate: the authors' ns-3 config).
inline constexpr dcqcn_profile dcqcn_paper{"paper",
                                           1.0 / 256,
                                           1.0,
                                           55 * dcqcn_us,
                                           55 * dcqcn_us,
                                           0,
                                           10'000'000,
                                           5,
                                           40e6,
                                           200e6,
                                           0,
                                           100e6,
                                           true,
                                           false,
                                           dcqcn_hyper_rule::both_counters,
                                           false,
                                           dcqcn_alpha_rule::per_cnp,
                                           false,
                                           50 * dcqcn_us,
                                           false};
// connectx: NVIDIA ConnectX firmware defaults (DOCA "DCQCN CC parameters", mlx5 cong.c names).
inline constexpr dcqcn_profile dcqcn_connectx{"connectx",
                                              5.0 / 1024,
                                              1023.0 / 1024,
                                              1 * dcqcn_us,
                                              300 * dcqcn_us,
                                              4 * dcqcn_us,
                                              32767ull * 64,
                                              1,
                                              5e6,
                                              50e6,
                                              0,
                                              1e6,
                                              false,
                                              true,
                                              dcqcn_hyper_rule::both_counters,
                                              true,
                                              dcqcn_alpha_rule::per_window,
                                              false,
                                              4 * dcqcn_us,
                                              false};
// hpcc-sim: the HPCC ns-3 simulator's DCQCN (rdma-hw.cc, run.py "dcqcn"): R_AI 5 Mb/s and
// R_HAI 50 Mb/s per 25 Gb/s of line rate.
inline constexpr dcqcn_profile dcqcn_hpcc_sim{"hpcc-sim",
                                              1.0 / 256,
                                              1.0,
                                              1 * dcqcn_us,
                                              300 * dcqcn_us,
                                              4 * dcqcn_us,
                                              0,
                                              1,
                                              5e6,
                                              50e6,
                                              25e9,
                                              1e9,
                                              false,
                                              true,
                                              dcqcn_hyper_rule::timer,
                                              true,
                                              dcqcn_alpha_rule::per_window,
                                              false,
                                              0,
                                              true};

// The profile of that name; null if none.
inline const dcqcn_profile* dcqcn_profile_named(const std::string& name) {
  for (const dcqcn_profile* p : {&dcqcn_paper, &dcqcn_connectx, &dcqcn_hpcc_sim})
    if (name == p->name) return p;
  return nullptr;
}

}  // namespace sluice
