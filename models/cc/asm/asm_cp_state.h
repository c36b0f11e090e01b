// The ASM (Adaptive Sliding Mode) congestion point as a pure state machine (no SystemC): one per
// egress queue. Like QCN's CP it counts the bytes arriving at the queue and samples a frame each
// jittered interval (sample_base x (1 +/- jitter), uniform). Unlike QCN it
//   - sends the queue offset and the queue growth *separately*, each quantized to 8 bits
//     (Qoff = Q - Qeq, Qdelta = Q - Qold, Qold <- Q at each sample; asm_field: quantum bytes
//     per step near 0, companded beyond), so the reaction point can tell the regions of the
//     Q/R plane apart;
//   - sends feedback whatever its sign (decrease *and* increase); only a sample whose two
//     fields both quantize to 0 sends nothing (it would change no rate);
//   - does not sample a frame whose source still has a feedback in flight (sent less than
//     `feedback_hold` ago): the sample passes to the next frame from another source;
//   - adds an integral of the small offsets to the Qoff it sends (integral sliding surface):
//     I <- clamp(I + integral_gain x Qoff, 0, min(integral_limit, Qeq / 2)) at each sample with
//     |Qoff| <= integral_limit, and Qoff + I is sent, so a steady drift of the sources (the
//     reaction points' active increase) does not hold the queue above Qeq.
// See docs/models/asm.md ("Congestion point").
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "models/cc/asm/asm_field.h"
#include "models/core/random.h"

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations'.
struct asm_cp_config {
  uint64_t qeq{};               // equilibrium queue depth, bytes
  uint64_t sample_base{};       // bytes arrived between samples (nominal)
  double jitter{};              // each interval drawn from [1 - jitter, 1 + jitter) x nominal
  uint64_t qoff_quantum{};      // bytes per step of the 8-bit Qoff field
  uint64_t qdelta_quantum{};    // bytes per step of the 8-bit Qdelta field
  uint64_t feedback_hold_ps{};  // a source's feedback counts as in flight this long after it is sent
  double integral_gain{};       // part of each sample's Qoff added to the integral
  double integral_limit{};      // bytes: the integral's ceiling, and the largest |Qoff| it takes in
};

struct asm_sample {
  bool sampled = false;                     // this frame was the sample
  bool suppressed = false;                  // a sample was due but this frame's source has a feedback in flight
  bool send = false;                        // send a feedback to the frame's source
  int64_t q_offset = 0, q_delta = 0;        // Q - Qeq + integral, Q - Qold (bytes, exact)
  int8_t qoff_field = 0, qdelta_field = 0;  // what the feedback carries
};

class asm_cp_state {
 public:
  // Sources remembered at once as "feedback in flight" (the oldest entry is reused when full).
  static constexpr size_t in_flight_slots = 16;

  explicit asm_cp_state(uint64_t seed) : rng_(seed) {}

  // A data frame of `bytes` from node `source` arrived at `now_ps`; `q` is the depth with it.
  asm_sample on_arrival(uint32_t bytes, uint64_t q, uint32_t source, uint64_t now_ps, const asm_cp_config& c) {
    asm_sample s;
    if (!started_) {
      started_ = true;
      left_ = draw(c);
    }
    if (!due_) {
      if (bytes < left_) {
        left_ -= bytes;
        return s;
      }
      due_ = true;
    }
    if (in_flight(source, now_ps)) {
      s.suppressed = true;
      return s;
    }
    due_ = false;
    left_ = draw(c);
    s.sampled = true;
    s.q_offset = static_cast<int64_t>(q) - static_cast<int64_t>(c.qeq);
    // Anti-windup: only offsets within the limit feed the integral (not a start's overload). The
    // set-point it aims at, Qeq - I, stays at or above Qeq / 2: never close to an empty queue.
    const double ceiling = std::min(c.integral_limit, static_cast<double>(c.qeq) / 2);
    if (std::fabs(static_cast<double>(s.q_offset)) <= c.integral_limit)
      integral_ = std::clamp(integral_ + c.integral_gain * static_cast<double>(s.q_offset), 0.0, ceiling);
    s.q_offset += static_cast<int64_t>(std::lround(integral_));
    s.q_delta = static_cast<int64_t>(q) - static_cast<int64_t>(qold_);
    qold_ = q;
    s.qoff_field = asm_field::encode(s.q_offset, c.qoff_quantum);
    s.qdelta_field = asm_field::encode(s.q_delta, c.qdelta_quantum);
    s.send = s.qoff_field != 0 || s.qdelta_field != 0;
    if (s.send) remember(source, now_ps + c.feedback_hold_ps);
    return s;
  }

  uint64_t bytes_to_next_sample() const { return due_ ? 0 : left_; }
  bool in_flight(uint32_t source, uint64_t now_ps) const {
    for (const auto& e : slots_)
      if (e.until_ps > now_ps && e.source == source) return true;
    return false;
  }

 private:
  struct slot {
    uint32_t source = 0;
    uint64_t until_ps = 0;  // 0: free
  };
  void remember(uint32_t source, uint64_t until_ps) {
    slot* target = &slots_[0];
    for (auto& e : slots_) {
      if (e.source == source || e.until_ps == 0) {
        target = &e;
        break;
      }
      if (e.until_ps < target->until_ps) target = &e;
    }
    *target = slot{source, until_ps};
  }
  uint64_t draw(const asm_cp_config& c) {
    const double f = 1.0 + c.jitter * (2.0 * rng_.uniform() - 1.0);
    const auto n = static_cast<uint64_t>(static_cast<double>(c.sample_base) * f);
    return n ? n : 1;
  }
  random_stream rng_;
  std::array<slot, in_flight_slots> slots_{};
  uint64_t qold_ = 0, left_ = 0;
  double integral_ = 0;  // bytes added to Qoff
  bool started_ = false, due_ = false;
};

}  // namespace sluice
