// A fluid model of one ASM bottleneck for unit tests: N sources at rates R_i feed one queue that
// drains at C. Each time step (one 1500-byte frame time at C) every source adds R_i dt bytes as one
// frame, which the congestion point sees; a feedback changes its source's rate `delay_s` later
// (sample to the new rate arriving at the queue). No SystemC: the ASM state machines alone, so
// the phase-plane claims of docs/models/asm.md can be checked in milliseconds.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "models/cc/asm/asm_cp_state.h"
#include "models/cc/asm/asm_rp_state.h"

namespace sluice::test {

struct asm_fluid {
  double capacity_bps = 100e9;
  int sources = 3;
  double delay_s = 4e-6;
  asm_cp_config cp;
  asm_rp_config rp;

  struct sample {  // one CP sample: time, queue, aggregate rate / capacity, sigma (bytes, exact)
    double t, q, r, sigma;
  };
  std::vector<sample> samples;
  uint64_t increases = 0, decreases = 0;
  double bytes_out = 0, busy_s = 0;  // bytes the link sent; time the queue was non-empty

  void run(double seconds) {
    const double frame = 1500, dt = frame * 8 / capacity_bps;
    asm_cp_state cp_state(7);
    rp.line_rate = capacity_bps;
    std::vector<asm_rp_state> rps(sources, asm_rp_state(capacity_bps));
    struct feedback {
      double at;
      int source;
      int8_t qoff, qdelta;
    };
    std::deque<feedback> pending;
    double q = 0;
    const auto steps = static_cast<int64_t>(seconds / dt);
    for (int64_t k = 0; k < steps; ++k) {
      const double t = static_cast<double>(k) * dt;
      for (; !pending.empty() && pending.front().at <= t; pending.pop_front()) {
        const feedback& f = pending.front();
        const auto r = rps[f.source].on_feedback(f.qoff, f.qdelta, 1, rp);
        increases += r == asm_rp_state::result::increase;
        decreases += r == asm_rp_state::result::decrease;
      }
      double aggregate = 0;
      for (const auto& s : rps) aggregate += s.rate();
      for (int i = 0; i < sources; ++i) {
        const double bytes = rps[i].rate() * dt / 8;
        q += bytes;
        const asm_sample s = cp_state.on_arrival(static_cast<uint32_t>(bytes), static_cast<uint64_t>(q),
                                                 static_cast<uint32_t>(i), static_cast<uint64_t>(t * 1e12), cp);
        if (s.sampled)
          samples.push_back({t, q, aggregate / capacity_bps,
                             static_cast<double>(s.q_offset) + rp.w * static_cast<double>(s.q_delta)});
        if (s.send) pending.push_back({t + delay_s, i, s.qoff_field, s.qdelta_field});
      }
      const double out = std::min(q, capacity_bps * dt / 8);
      bytes_out += out;
      busy_s += q > 0 ? dt : 0;
      q -= out;
    }
  }
};

}  // namespace sluice::test
