// The ECM (Ethernet Congestion Manager, BCN) congestion point as a pure state machine (no
// SystemC): one per egress queue. It counts the bytes arriving at the queue and samples a frame
// each time a jittered interval (sample_base x (1 +/- jitter), uniform; ECM's sampling does not
// depend on the feedback, unlike QCN's) has passed. At a sample, with Q the depth after the
// frame (the tutorial's notation, positive Fb = room):
//   Qoff = Q - Qeq,  Qdelta = Q - Qold,  Fb = -(Qoff + w Qdelta),  Qold = Q
//   Fb < 0: negative BCN to the sampled frame's source, whatever its tag;
//   Fb > 0: positive BCN only if the frame carries this CP's CPID tag (its rate limiter is
//           associated with this CP), so a CP that did not cause the limit never raises it;
//   Fb = 0, or Fb > 0 on a frame without this CP's tag: nothing.
// See docs/models/ecm.md.
#pragma once
#include <cstdint>

#include "models/core/random.h"

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations' (ecm_cp.cpp).
struct ecm_cp_config {
  uint64_t qeq{};          // equilibrium queue depth, bytes
  double w{};              // weight of the queue's growth
  uint64_t sample_base{};  // bytes arrived between samples (nominal)
  double jitter{};         // each interval drawn from [1 - jitter, 1 + jitter) x nominal
};

enum class bcn_kind { none, negative, positive };

struct ecm_sample {
  bool sampled = false;
  int64_t q_offset = 0, q_delta = 0;  // Q - Qeq, Q - Qold (bytes)
  int64_t fb = 0;                     // -(Qoff + w Qdelta), bytes
  bcn_kind send = bcn_kind::none;
};

class ecm_cp_state {
 public:
  explicit ecm_cp_state(uint64_t seed) : rng_(seed) {}

  // A data frame of `bytes` with CPID tag `tag` arrived; `q` is the depth with it; `mine` is
  // this CP's tag.
  ecm_sample on_arrival(uint32_t bytes, uint64_t q, uint32_t tag, uint32_t mine, const ecm_cp_config& c) {
    ecm_sample s;
    if (!started_) {
      started_ = true;
      left_ = draw(c);
    }
    if (bytes < left_) {
      left_ -= bytes;
      return s;
    }
    left_ = draw(c);
    s.sampled = true;
    s.q_offset = static_cast<int64_t>(q) - static_cast<int64_t>(c.qeq);
    s.q_delta = static_cast<int64_t>(q) - static_cast<int64_t>(qold_);
    s.fb = -(s.q_offset + static_cast<int64_t>(c.w * static_cast<double>(s.q_delta)));
    qold_ = q;
    if (s.fb < 0)
      s.send = bcn_kind::negative;
    else if (s.fb > 0 && tag == mine)
      s.send = bcn_kind::positive;
    return s;
  }
  uint64_t bytes_to_next_sample() const { return left_; }

 private:
  uint64_t draw(const ecm_cp_config& c) {
    const double f = 1.0 + c.jitter * (2.0 * rng_.uniform() - 1.0);
    const auto n = static_cast<uint64_t>(static_cast<double>(c.sample_base) * f);
    return n ? n : 1;
  }
  random_stream rng_;
  uint64_t qold_ = 0, left_ = 0;
  bool started_ = false;
};

}  // namespace sluice
