// A fluid model of one ASM bottleneck for unit tests: N sources at rates R_i feed one queue that
// drains at C. Each time step (one 1500-byte frame time at C) every source adds R_i dt bytes as one
// frame, which the congestion point sees; a feedback changes its source's rate `delay_s` later
// (sample to the new rate arriving at the queue). The sources take turns in a shuffled order each
// step (a fixed order would let the last one always see the others' bytes of the step in the
// queue: a bias of up to a frame in its Qoff). Source i sends from start_s[i] to stop_s[i] (the
// whole run by default), at the line rate when it starts. No SystemC: the ASM state machines
// alone, so the phase-plane claims of docs/models/asm.md can be checked in milliseconds.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "models/cc/asm/asm_cp_state.h"
#include "models/cc/asm/asm_rp_state.h"

namespace sluice::test {

struct asm_fluid {
  double capacity_bps = 100e9;
  int sources = 3;
  double delay_s = 4e-6;
  std::vector<double> start_s, stop_s;  // per source; empty: every source for the whole run
  asm_cp_config cp;
  asm_rp_config rp;
  uint32_t seed = 7;

  // One CP sample: time, queue, aggregate rate / capacity; sigma = Q - Qeq + w Qdelta, the
  // state's distance from the boundary line (bytes, exact), and sigma_sent, the same with the
  // CP's integral in Qoff (what the reaction points are driving to 0).
  struct sample {
    double t, q, r, sigma, sigma_sent;
  };
  std::vector<sample> samples;
  std::vector<double> sent_bytes;  // per source, over the run
  // Called every step with the time and each source's bytes of the step (0 when off).
  std::function<void(double, const std::vector<double>&)> on_step;
  uint64_t increases = 0, decreases = 0;
  double bytes_out = 0, busy_s = 0;  // bytes the link sent; time the queue was non-empty

  void run(double seconds) {
    const double frame = 1500, dt = frame * 8 / capacity_bps;
    asm_cp_state cp_state(seed);
    rp.line_rate = capacity_bps;
    std::vector<asm_rp_state> rps(sources, asm_rp_state(capacity_bps));
    std::vector<int> order(sources);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 shuffle(seed);
    sent_bytes.assign(sources, 0);
    std::vector<double> step_bytes(sources);
    const auto on = [&](int i, double t) {
      return (start_s.empty() || t >= start_s[i]) && (stop_s.empty() || t < stop_s[i]);
    };
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
      const auto now_ps = static_cast<uint64_t>(t * 1e12);
      for (; !pending.empty() && pending.front().at <= t; pending.pop_front()) {
        const feedback& f = pending.front();
        if (!on(f.source, t)) continue;
        rps[f.source].on_clock(now_ps, rp);
        const auto r = rps[f.source].on_feedback(f.qoff, f.qdelta, 1, rp);
        increases += r == asm_rp_state::result::increase;
        decreases += r == asm_rp_state::result::decrease;
      }
      double aggregate = 0;
      for (int i = 0; i < sources; ++i) aggregate += on(i, t) ? rps[i].rate() : 0;
      std::shuffle(order.begin(), order.end(), shuffle);
      for (int i : order) {
        step_bytes[i] = 0;
        if (!on(i, t)) continue;
        if (!start_s.empty() && t - dt < start_s[i]) rps[i] = asm_rp_state(capacity_bps);  // starts afresh
        rps[i].on_clock(now_ps, rp);
        const double bytes = rps[i].rate() * dt / 8;
        rps[i].on_sent(static_cast<uint32_t>(bytes));
        step_bytes[i] = bytes;
        sent_bytes[i] += bytes;
        q += bytes;
        const asm_sample s = cp_state.on_arrival(static_cast<uint32_t>(bytes), static_cast<uint64_t>(q),
                                                 static_cast<uint32_t>(i), now_ps, cp);
        if (s.sampled)
          samples.push_back({t, q, aggregate / capacity_bps,
                             std::floor(q) - static_cast<double>(cp.qeq) + rp.w * static_cast<double>(s.q_delta),
                             static_cast<double>(s.q_offset) + rp.w * static_cast<double>(s.q_delta)});
        if (s.send) pending.push_back({t + delay_s, i, s.qoff_field, s.qdelta_field});
      }
      if (on_step) on_step(t, step_bytes);
      const double out = std::min(q, capacity_bps * dt / 8);
      bytes_out += out;
      busy_s += q > 0 ? dt : 0;
      q -= out;
    }
  }
};

}  // namespace sluice::test
