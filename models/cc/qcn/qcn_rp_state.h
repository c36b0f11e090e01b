// The IEEE 802.1Qau QCN reaction point as a pure state machine (no SystemC): one per flow, a
// current rate CR and a target rate TR (rates in bit/s, times in ps). The rules follow the
// 802.1Qau pseudo-code as its public ports run it (the ns-3 RDMA model, qbb-net-device.cc, and
// an OMNeT++ port; docs/models/qcn.md, "Fidelity", names the source of each rule).
//
//   On a CNM with quantized feedback qFb (1..63):
//     TR <- CR and byte counter <- BC, unless extra fast recovery holds TR: the byte counter has
//        not ended a cycle since the last CNM (tr_hold = byte-stage, both ports), or neither
//        counter has (both-stages); the cuts then accumulate (bc_reset_every_cnm: the byte
//        counter restarts anyway);
//     CR <- max(CR * (1 - Gd * qFb / 63), min_rate)   (Gd = 0.5: the largest feedback halves CR);
//     both stage counters <- 0, timer <- now + T (not jittered).
//   Each cycle end (byte counter: every BC bytes sent, BC/2 once past F cycles; timer: every T,
//   T/2 once past F cycles; each next period times 1 + recovery_jitter * (2u - 1), u uniform
//   from the flow's own stream) increments its stage counter, then:
//     target_reduction, a counter at 1 and TR > 10*CR:  TR <- TR/8,   CR <- (CR + TR)/2
//     both counters <= F           fast recovery:   CR <- (CR + TR)/2
//     one counter  > F             active increase: TR <- TR + R_AI,            CR <- (CR + TR)/2
//     both counters > F            hyper-active:    TR <- TR + i*R_HAI, i = min(counters) - F,
//                                                   CR <- (CR + TR)/2
//   CR never exceeds the line rate; when it reaches it the limiter is released (no counters, no
//   timer) until the next CNM.
//
// Transient-response improvements (seed qcn-transient-response; off by default):
//   path_ba           a CNM with qFb = 0 is the CP's "Fb99" push-back (bandwidth not available
//                     on the path): CR and TR unchanged, both stage counters go back one cycle
//                     (not below 0), the timer restarts; the timer period is ba_timer instead of
//                     timer (also restarted by every Fb < 0); and the two counters make one
//                     cycle count: a cycle end of either sets both to max(both) + 1, so past F
//                     cycles it is hyper-active increase (the timer expiring without a push-back
//                     is the path's "bandwidth available", docs/models/qcn.md).
//
//   sonar             the ping timer (seed's SONAR; off by default), states idle, WP (waiting to
//                     probe), WE (waiting for echo), SF (short fuse). A cut (qFb > 0) -> WP, due
//                     in sonar_wait. WP expires -> the next data frame the flow sends carries the
//                     probe bit (take_probe), and the RL goes to WE, due in sonar_echo_wait. A
//                     qFb = 0 CNM in WE is the echo (a CP on the path has no bandwidth) -> WP
//                     again. WE expires with no echo -> SF: the RL jumps to hyper-active increase
//                     (both stage counts to at least F + 1) and every sonar_fuse the ping timer
//                     ends a cycle too (an HAI step), until the next cut; release -> idle.
#pragma once
#include <algorithm>
#include <cstdint>

#include "models/core/random.h"

namespace sluice {

// The parameters as the state machine reads them; their defaults are the declarations' (qcn_rp.cpp).
struct qcn_rp_config {
  double gd{};                 // cut per unit of qFb/63: 0.5 would halve CR at qFb = 63
  double min_rate_bps{};       // floor of CR
  uint64_t bc_limit{};         // bytes per byte-counter cycle in fast recovery (BC/2 after)
  uint64_t timer_ps{};         // timer cycle in fast recovery (T/2 after)
  int fr_threshold{};          // F: cycles of fast recovery per counter
  double r_ai_bps{};           // active-increase step of TR
  double r_hai_bps{};          // hyper-active-increase step of TR, times i
  bool extra_fast_recovery{};  // cuts before the byte counter's first cycle keep TR
  bool target_reduction{};     // a cycle end with a counter at 1 and TR > 10*CR: TR <- TR/8
  bool path_ba{};              // qFb = 0 is Fb99 (push back one cycle); timer = ba_timer
  uint64_t ba_timer_ps{};      // the path-BA rate-increase timer
  uint64_t cycle_timer_ps() const { return path_ba ? ba_timer_ps : timer_ps; }
  bool sonar{};                // the SONAR ping timer
  uint64_t sonar_wait_ps{};    // WP: from a cut to the next probe
  uint64_t sonar_echo_ps{};    // WE: how long a probe waits for its echo
  uint64_t sonar_fuse_ps{};    // SF: a hyper-active cycle every this long
  double recovery_jitter{};    // each byte-counter and timer period after a cycle end: x (1 +/- this)
  bool tr_hold_both_stages{};  // extra fast recovery holds TR only while neither counter ended a cycle
  bool bc_reset_every_cnm{};   // every CNM restarts the byte counter (else only when TR <- CR)
};

class qcn_rp_state {
 public:
  explicit qcn_rp_state(double line_bps = 0, uint64_t seed = 0) : rng_(seed) { set_line_rate(line_bps); }
  void set_line_rate(double bps) { line_ = cr_ = tr_ = bps; }

  bool limited() const { return limited_; }
  double current_rate() const { return cr_; }
  double target_rate() const { return tr_; }
  double line_rate() const { return line_; }
  int byte_stage() const { return byte_stage_; }
  int timer_stage() const { return timer_stage_; }
  uint64_t bytes_left() const { return bytes_left_; }
  uint64_t timer_due_ps() const { return limited_ ? timer_due_ : 0; }  // 0: not armed
  enum class ping { idle, wait_probe, wait_echo, short_fuse };
  ping ping_state() const { return ping_; }
  // 0: not armed (idle, or a probe waiting for the flow's next frame).
  uint64_t ping_due_ps() const { return limited_ && !probe_pending_ ? ping_due_ : 0; }

  // Returns true if the state changed (a cut, or an Fb99 push-back with path_ba).
  bool on_cnm(uint8_t qfb, uint64_t now_ps, const qcn_rp_config& c) {
    if (qfb == 0 && c.sonar && limited_ && ping_ == ping::wait_echo) {  // the echo of our probe
      start_ping(now_ps, c);
      if (!c.path_ba) return true;
    }
    if (qfb == 0) {  // Fb99: only with path_ba, only while limited
      if (!c.path_ba || !limited_) return false;
      byte_stage_ = std::max(0, byte_stage_ - 1);
      timer_stage_ = std::max(0, timer_stage_ - 1);
      timer_due_ = now_ps + c.cycle_timer_ps();
      return true;
    }
    const bool hold =
        c.extra_fast_recovery && limited_ && byte_stage_ == 0 && (!c.tr_hold_both_stages || timer_stage_ == 0);
    if (!hold) tr_ = cr_;
    if (!hold || c.bc_reset_every_cnm) bytes_left_ = c.bc_limit;
    cr_ = std::max(cr_ * (1.0 - c.gd * qfb / 63.0), c.min_rate_bps);
    limited_ = true;
    byte_stage_ = timer_stage_ = 0;
    timer_due_ = now_ps + c.cycle_timer_ps();
    if (c.sonar) start_ping(now_ps, c);
    return true;
  }
  // SONAR: the ping timer is due (now_ps >= ping_due_ps()); returns true if a cycle ended.
  bool on_ping_timer(uint64_t now_ps, const qcn_rp_config& c) {
    if (!limited_ || probe_pending_ || now_ps < ping_due_) return false;
    switch (ping_) {
      case ping::wait_probe:
        probe_pending_ = true;  // the next frame is the probe
        return false;
      case ping::wait_echo:  // no echo: the path has bandwidth; go to HAI
        ping_ = ping::short_fuse;
        byte_stage_ = std::max(byte_stage_, c.fr_threshold + 1);
        timer_stage_ = std::max(timer_stage_, c.fr_threshold + 1);
        ping_due_ = now_ps + c.sonar_fuse_ps;
        return false;
      case ping::short_fuse:
        ++timer_stage_;
        ping_due_ = now_ps + c.sonar_fuse_ps;
        end_cycle(c);
        return true;
      default:
        return false;
    }
  }
  // SONAR: should the frame the flow sends now carry the probe bit? If so it is sent (WE).
  bool take_probe(uint64_t now_ps, const qcn_rp_config& c) {
    if (!probe_pending_ || !limited_) return false;
    probe_pending_ = false;
    ping_ = ping::wait_echo;
    ping_due_ = now_ps + c.sonar_echo_ps;
    return true;
  }
  // The flow started a frame of `bytes`; returns true if a byte-counter cycle ended (CR changed).
  bool on_sent(uint64_t bytes, const qcn_rp_config& c) {
    if (!limited_) return false;
    if (bytes < bytes_left_) {
      bytes_left_ -= bytes;
      return false;
    }
    ++byte_stage_;
    if (c.path_ba) timer_stage_ = byte_stage_ = std::max(byte_stage_, timer_stage_ + 1);
    bytes_left_ = jittered(byte_stage_ < c.fr_threshold ? c.bc_limit : c.bc_limit / 2, c);
    end_cycle(c);
    return true;
  }
  // The timer is due (now_ps >= timer_due_ps()); returns true if a cycle ended.
  bool on_timer(uint64_t now_ps, const qcn_rp_config& c) {
    if (!limited_ || now_ps < timer_due_) return false;
    ++timer_stage_;
    if (c.path_ba) timer_stage_ = byte_stage_ = std::max(timer_stage_, byte_stage_ + 1);
    timer_due_ = now_ps + jittered(timer_stage_ < c.fr_threshold ? c.cycle_timer_ps() : c.cycle_timer_ps() / 2, c);
    end_cycle(c);
    return true;
  }

 private:
  // A period drawn from the flow's own stream: nominal x (1 + jitter (2u - 1)), u in [0, 1).
  uint64_t jittered(uint64_t nominal, const qcn_rp_config& c) {
    if (c.recovery_jitter <= 0) return nominal;
    const double f = 1.0 + c.recovery_jitter * (2.0 * rng_.uniform() - 1.0);
    return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(nominal) * f));
  }
  void end_cycle(const qcn_rp_config& c) {
    const int f = c.fr_threshold;
    // Target-rate reduction replaces the cycle's increase (both ports: "stage 1 of either
    // counter and TR > 10 CR").
    if (c.target_reduction && (byte_stage_ == 1 || timer_stage_ == 1) && tr_ > 10 * cr_)
      tr_ /= 8;
    else if (byte_stage_ > f && timer_stage_ > f)
      tr_ += (std::min(byte_stage_, timer_stage_) - f) * c.r_hai_bps;
    else if (byte_stage_ > f || timer_stage_ > f)
      tr_ += c.r_ai_bps;
    cr_ = (cr_ + tr_) / 2;
    if (cr_ >= line_) {  // back at line rate: release the limiter
      cr_ = tr_ = line_;
      limited_ = false;
      ping_ = ping::idle;
      probe_pending_ = false;
    }
  }
  void start_ping(uint64_t now_ps, const qcn_rp_config& c) {
    ping_ = ping::wait_probe;
    probe_pending_ = false;
    ping_due_ = now_ps + c.sonar_wait_ps;
  }

  double line_ = 0, cr_ = 0, tr_ = 0;
  bool limited_ = false;
  random_stream rng_;  // the flow's stream for the recovery periods
  int byte_stage_ = 0, timer_stage_ = 0;
  uint64_t bytes_left_ = 0, timer_due_ = 0;
  ping ping_ = ping::idle;
  bool probe_pending_ = false;
  uint64_t ping_due_ = 0;
};

}  // namespace sluice
