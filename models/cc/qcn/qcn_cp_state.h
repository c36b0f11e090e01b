// The IEEE 802.1Qau QCN congestion point as a pure state machine (no SystemC): one per egress
// queue. It counts the bytes that arrive at the queue and samples a frame each time a randomized
// interval has passed; at a sample it computes
//   Qoff = Q - Qeq,  Qdelta = Q - Qold,  Fb = -(Qoff + w * Qdelta),  Qold = Q
// and, when Fb < 0, the 6-bit quantized |Fb| the CNM carries:
//   qFb = min(63, floor(|Fb| * 63 / Fbmax)),  Fbmax = (1 + 2w) * Qeq
// (truncated, as the OMNeT++ port of the pseudo-code: an |Fb| below Fbmax/63 makes no CNM;
// round_up: ceil, so every Fb < 0 makes one with qFb >= 1). The next sampling interval depends on
// the band of qFb (its top 3 bits), from the pseudo-code's table (150 KB / (1 + k), as the
// OMNeT++ port lists it) or Sluice's linear one, jittered uniformly by +/- `jitter`. See
// docs/models/qcn.md.
//
// path_ba (seed qcn-transient-response, off by default): the CP also keeps a binary "bandwidth
// available" signal, BA = 1 once the queue has stayed below ba_threshold for ba_time without a
// break (the seed: < 6 packets for 10 ms). The sampling interval then also shortens with a
// positive Fb (the band of the quantized |Fb|, either sign), and a sample with Fb >= 0 while
// BA = 0 asks for an "Fb99" push-back (a CNM with qFb = 0).
//
// sonar (seed, off by default): the same BA signal answers SONAR probes: a data frame with the
// probe bit arriving while BA = 0 ("this switch has no extra bandwidth") is echoed to its source,
// as a qFb = 0 CNM (the caller sends it; docs/models/qcn.md).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/core/random.h"

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations' (qcn_cp.cpp).
struct qcn_cp_config {
  uint64_t qeq{};           // equilibrium queue depth, bytes
  double w{};               // weight of the queue's growth
  uint64_t sample_base{};   // sampling interval at qFb < 8, bytes arrived
  double jitter{};          // each interval is drawn from [1 - jitter, 1 + jitter) x nominal
  bool linear_table{};      // sampling bands 1/(1 + 9k/7) instead of the pseudo-code's table
  bool round_up{};          // qFb rounded up (every Fb < 0 a CNM) instead of truncated
  bool path_ba{};           // BA signal and Fb99 push-back
  uint64_t ba_threshold{};  // BA needs the queue below this...
  uint64_t ba_time_ps{};    // ...for this long without a break
  bool sonar{};             // SONAR: keep the BA signal to answer probes (the echo is the caller's)
  bool tracks_ba() const { return path_ba || sonar; }
};

struct qcn_sample {
  bool sampled = false;  // this frame was sampled
  int64_t fb = 0;        // Fb, bytes (negative: congestion)
  int64_t q_offset = 0, q_delta = 0;
  uint8_t qfb = 0;         // quantized |Fb| (0 when Fb >= 0): a CNM is due when non-zero
  bool push_back = false;  // path_ba: Fb >= 0 with BA = 0, an Fb99 (qFb = 0 CNM) is due
};

class qcn_cp_state {
 public:
  // Sampling interval as a fraction of sample_base, per band k = qFb >> 3. The pseudo-code's
  // table (the OMNeT++ port's markTable): 150, 75, 50, 37.5, 30, 25, 21.5, 18.5 KB at a 150 KB
  // base, about 150/(1 + k). Linear: a sampling probability rising from 1 % (k = 0) to 10 %
  // (k = 7) of 1500-B frames, 1/(1 + 9k/7): 150, 66.7, 42.0, 30.9, 24.4, 20.2, 17.2, 15.0 KB.
  static double band_fraction(int k, bool linear = false) {
    static constexpr double table[8] = {150, 75, 50, 37.5, 30, 25, 21.5, 18.5};
    return linear ? 1.0 / (1.0 + 9.0 * k / 7.0) : table[k] / 150.0;
  }
  static uint64_t nominal_interval(const qcn_cp_config& c, uint8_t qfb) {
    return static_cast<uint64_t>(
        std::llround(static_cast<double>(c.sample_base) * band_fraction(qfb >> 3, c.linear_table)));
  }
  static uint8_t quantize(int64_t fb, const qcn_cp_config& c) {
    if (fb >= 0) return 0;
    const double fbmax = (1.0 + 2.0 * c.w) * static_cast<double>(c.qeq);
    const double scaled = static_cast<double>(-fb) * 63.0 / fbmax;
    const double q = c.round_up ? std::max(1.0, std::ceil(scaled)) : std::floor(scaled);
    return static_cast<uint8_t>(std::min(63.0, q));
  }
  static int64_t feedback(uint64_t q, uint64_t qold, const qcn_cp_config& c) {
    const double qoff = static_cast<double>(q) - static_cast<double>(c.qeq);
    const double qdelta = static_cast<double>(q) - static_cast<double>(qold);
    return -static_cast<int64_t>(std::llround(qoff + c.w * qdelta));
  }

  explicit qcn_cp_state(uint64_t seed) : rng_(seed) {}

  // A frame of `bytes` arrived; `q` is the queue depth with it. `c` is read at every call, so
  // parameters set after construction apply.
  // `now_ps` matters only with path_ba (the BA signal at that time).
  qcn_sample on_arrival(uint32_t bytes, uint64_t q, const qcn_cp_config& c, uint64_t now_ps = 0) {
    if (c.tracks_ba()) on_depth(q, now_ps, c);
    qcn_sample s;
    if (!started_) {
      started_ = true;
      left_ = draw(c, 0);
    }
    if (bytes < left_) {
      left_ -= bytes;
      return s;
    }
    s.sampled = true;
    s.q_offset = static_cast<int64_t>(q) - static_cast<int64_t>(c.qeq);
    s.q_delta = static_cast<int64_t>(q) - static_cast<int64_t>(qold_);
    s.fb = feedback(q, qold_, c);
    s.qfb = quantize(s.fb, c);
    qold_ = q;
    if (c.path_ba && s.fb >= 0) {
      s.push_back = !bandwidth_available(now_ps, c);
      left_ = draw(c, quantize(-s.fb, c));  // sampling shortens with a positive Fb too
    } else {
      left_ = draw(c, s.qfb);
    }
    return s;
  }
  // path_ba: the queue depth after any change (enqueue or dequeue) at now_ps.
  void on_depth(uint64_t q, uint64_t now_ps, const qcn_cp_config& c) {
    if (q >= c.ba_threshold) {
      low_ = false;
    } else if (!low_) {
      low_ = true;
      low_since_ = now_ps;
    }
  }
  bool bandwidth_available(uint64_t now_ps, const qcn_cp_config& c) const {
    return low_ && now_ps - low_since_ >= c.ba_time_ps;
  }
  uint64_t bytes_to_next_sample() const { return left_; }

 private:
  uint64_t draw(const qcn_cp_config& c, uint8_t qfb) {
    rng_ = mix64(rng_);
    const double u = static_cast<double>(rng_ >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    const double f = 1.0 + c.jitter * (2.0 * u - 1.0);
    return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(nominal_interval(c, qfb)) * f));
  }
  uint64_t rng_;
  uint64_t qold_ = 0, left_ = 0;
  bool started_ = false;
  bool low_ = true;  // path_ba: the queue is below ba_threshold, since low_since_
  uint64_t low_since_ = 0;
};

}  // namespace sluice
