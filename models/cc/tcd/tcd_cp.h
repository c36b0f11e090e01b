// TCD's ternary congestion detector as a pure state machine (Zhang et al., SIGCOMM'21, sections
// 4.1-4.2; [TCD-ns3]; docs/models/tcd.md), one per egress port and class.
//
// The ON-OFF model: a port that hop-by-hop flow control pauses sends in ON periods of at most
//   Ton = (B1 - B0 + tau Rd) / (eps C) + tau                       (eq. 2)
// with B1 - B0 the downstream buffer's OFF/ON gap, tau the loop's response time, Rd the drain
// rate and eps = (Ri - Rd) / C the congestion degree; Rd <= C/2 bounds it by
//   max(Ton) = (2 (B1 - B0) + tau C) / (2 eps C) + tau              (eq. 3)
// On each departure, Ton = now - the end of the latest OFF period:
//   Ton < max(Ton)           -> undetermined (an ON-OFF pattern: perhaps only a victim)
//   otherwise (continuous ON), the queue q left behind decides:
//     q <= low               -> non-congestion (at once)
//     every period: q > high and q >= its level one period ago  -> congestion
//   (else the state stays).
// Marking (2-bit code points in the ECN field): congestion -> CE (11); undetermined -> UE (10),
// only if not already CE; non-congestion leaves the frame alone.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>

#include "models/core/packet.h"

namespace sluice {

enum class tcd_state : uint8_t { non_congestion = 0, undetermined = 1, congestion = 2 };
constexpr uint8_t ecn_ue = 2, ecn_ce = 3;  // TCD's code points 10 and 11

// Eq. (3): max(Ton) in ps from B1 - B0 (bytes), tau (ps), C (bit/s) and eps.
inline uint64_t tcd_max_ton_ps(uint64_t gap_bytes, uint64_t tau_ps, double rate_bps, double eps) {
  const double tau_s = static_cast<double>(tau_ps) * 1e-12;
  const double bits = 2.0 * 8.0 * static_cast<double>(gap_bytes) + tau_s * rate_bps;
  return static_cast<uint64_t>(std::llround(bits / (2.0 * eps * rate_bps) * 1e12)) + tau_ps;
}
// Eq. (1): the ON period in seconds for input rate Ri > drain rate Rd (bit/s).
inline double tcd_on_period_s(uint64_t gap_bytes, double tau_s, double ri_bps, double rd_bps) {
  return (8.0 * static_cast<double>(gap_bytes) + tau_s * rd_bps) / (ri_bps - rd_bps) + tau_s;
}
// The ON period of a VL starved for credit (docs/models/tcd.md, "InfiniBand"): each credit packet,
// one per update interval I while the downstream drains at Rd, returns the Rd x I bytes released
// since the previous one, sent at C in frames of L bytes; the ON period runs from the packet's
// arrival to the last of those frames' departures: (Rd I / L - 1) L / C on average.
inline double tcd_credit_on_period_s(double interval_s, double rd_bps, double c_bps, double frame_bytes) {
  return (rd_bps * interval_s / 8.0 / frame_bytes - 1.0) * frame_bytes * 8.0 / c_bps;
}

// The parameters as the detector reads them; their defaults are the declarations' (tcd_cp.cpp).
struct tcd_config {
  uint64_t max_ton_ps{};  // 0: no ON-OFF detection (every port continuous ON)
  uint64_t period_ps{};   // the queue-trend period T
  uint64_t high_bytes{}, low_bytes{};
};

class tcd_detector {
 public:
  // A data frame leaves at now_ps leaving q bytes behind; off_end_ps: when the class's latest OFF
  // period ended (0: never paused). Returns the state to mark the frame with.
  tcd_state on_dequeue(const tcd_config& c, uint64_t now_ps, uint64_t off_end_ps, uint64_t q) {
    if (off_end_ps != off_end_) {  // a new OFF period ended: the ON period before it is complete
      if (off_end_ != 0 && last_ps_ > off_end_) record_on(last_ps_ - off_end_);
      off_end_ = off_end_ps;
    }
    last_ps_ = now_ps;
    const bool period_over = now_ps - check_ps_ >= c.period_ps;
    if (off_end_ps != 0 && now_ps - off_end_ps < c.max_ton_ps) {
      enter(tcd_state::undetermined, now_ps);
    } else if (q <= c.low_bytes) {
      enter(tcd_state::non_congestion, now_ps);
    } else if (period_over && q > c.high_bytes && q >= q_at_check_) {
      enter(tcd_state::congestion, now_ps);
    }
    if (period_over) {
      check_ps_ = now_ps;
      q_at_check_ = q;
    }
    return state_;
  }
  tcd_state state() const { return state_; }
  // Entries into each state (the transitions that ended in it).
  uint64_t entries(tcd_state s) const { return entries_[static_cast<int>(s)]; }
  // Time spent in each state up to now_ps.
  uint64_t time_in_ps(tcd_state s, uint64_t now_ps) const {
    return time_ps_[static_cast<int>(s)] + (s == state_ && now_ps > since_ps_ ? now_ps - since_ps_ : 0);
  }
  // Complete ON periods seen (from the end of an OFF period to the last departure before the next
  // one ended): count, sum, largest.
  uint64_t on_periods() const { return on_count_; }
  uint64_t on_sum_ps() const { return on_sum_ps_; }
  uint64_t on_max_ps() const { return on_max_ps_; }

 private:
  void enter(tcd_state s, uint64_t now_ps) {
    if (s == state_) return;
    time_ps_[static_cast<int>(state_)] += now_ps - since_ps_;
    since_ps_ = now_ps;
    state_ = s;
    ++entries_[static_cast<int>(s)];
  }
  void record_on(uint64_t ps) {
    ++on_count_;
    on_sum_ps_ += ps;
    if (ps > on_max_ps_) on_max_ps_ = ps;
  }

  tcd_state state_ = tcd_state::non_congestion;
  uint64_t off_end_ = 0, last_ps_ = 0;
  uint64_t check_ps_ = 0, q_at_check_ = 0;
  uint64_t since_ps_ = 0;
  std::array<uint64_t, 3> time_ps_{}, entries_{};
  uint64_t on_count_ = 0, on_sum_ps_ = 0, on_max_ps_ = 0;
};

// Marks a departing frame's ECN field for state s (UE never over CE).
inline void tcd_mark(uint8_t& ecn, tcd_state s) {
  if (s == tcd_state::congestion)
    ecn = ecn_ce;
  else if (s == tcd_state::undetermined && ecn != ecn_ce)
    ecn = ecn_ue;
}
// The same on an InfiniBand frame, in its BTH flags: CE is FECN (replacing a UE set upstream),
// UE the reserved bit frame_flags::tcd_ue, only if FECN is not set.
inline void tcd_mark_bth(uint8_t& flags, tcd_state s) {
  if (s == tcd_state::congestion)
    flags = static_cast<uint8_t>((flags & ~frame_flags::tcd_ue) | frame_flags::fecn);
  else if (s == tcd_state::undetermined && !(flags & frame_flags::fecn))
    flags |= frame_flags::tcd_ue;
}

}  // namespace sluice
