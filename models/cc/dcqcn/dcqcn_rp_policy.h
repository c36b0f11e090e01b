// The policy side of DCQCN's reaction point, shared by "dcqcn" and "dcqcn-tcd" (dcqcn_rp.cpp) and
// by "dcqcn-rtl" (models/rtl/dcqcn_rp_rtl.cpp): the parameters (the maker, one per NIC) and the
// flow's timing (dcqcn_rp_timing), which turns time into the alpha-timer, rate-timer and
// rate-decrease events and the flow's sent bytes into byte-counter events for a rate machine.
// Machine: dcqcn_rp_state (floating point), or any type with its event methods (on_cnp, note_cnp,
// cut, on_hold, on_alpha_timer, on_missed_alpha_periods, on_rate_timer, on_bytes) and rates (rc,
// rt) in bit/s.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "models/cc/dcqcn/dcqcn_profiles.h"
#include "models/cc/dcqcn/dcqcn_rp.h"
#include "models/cc/reaction_point.h"
#include "models/core/event_queue.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/protocol/roce_frame.h"

namespace sluice {

enum class dcqcn_reaction { cut, hold, ignore };
inline dcqcn_reaction dcqcn_reaction_named(const std::string& name) {
  return name == "cut" ? dcqcn_reaction::cut : name == "hold" ? dcqcn_reaction::hold : dcqcn_reaction::ignore;
}

class dcqcn_rp_maker : public reaction_point_maker {
  const sc_core::sc_object* nic_;  // first: the parameters below are declared under it
  const mac_port& mac_;

 public:
  dcqcn_rp_maker(const sc_core::sc_object& nic, const mac_port& mac, bool ternary) : nic_(&nic), mac_(mac) {
    if (ternary) {
      ce_reaction = std::make_unique<choice_param>(&nic, [] {
        return choice_spec{"rp.ce_reaction",
                           "dcqcn-tcd: reaction to a CNP for a CE (congestion) frame",
                           "cut",
                           {"cut", "hold", "ignore"}};
      });
      ue_reaction = std::make_unique<choice_param>(&nic, [] {
        return choice_spec{"rp.ue_reaction",
                           "dcqcn-tcd: reaction to a CNP for a UE (undetermined: perhaps a victim) frame",
                           "hold",
                           {"cut", "hold", "ignore"}};
      });
    }
    rules_ = rules();  // the declared rules until derive_defaults applies the profile
    config_.watch({&g, &rai, &rhai, &min_rate});
  }
  // The floating-point machine (dcqcn_rp_state) for the flow; dcqcn-rtl makes its own.
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if& limiter) override;
  // The profile's values become the defaults; what the scenario or --set gave stays.
  void derive_defaults() override {
    const dcqcn_profile& p = *dcqcn_profile_named(profile());
    const double line = mac_.wire().current_rate().bps;
    g.set_default(p.g);
    alpha0.set_default(p.alpha_init);
    alpha_timer.set_default(sc_core::sc_time(static_cast<double>(p.alpha_timer_ps), sc_core::SC_PS));
    timer.set_default(sc_core::sc_time(static_cast<double>(p.timer_ps), sc_core::SC_PS));
    rate_decrease_interval.set_default(
        sc_core::sc_time(static_cast<double>(p.rate_decrease_interval_ps), sc_core::SC_PS));
    byte_counter.set_default(byte_count{p.byte_counter});
    fast_recovery.set_default(p.fast_recovery);
    rai.set_default(data_rate{p.rai_at(line)});
    rhai.set_default(data_rate{p.rhai_at(line)});
    min_rate.set_default(data_rate{p.min_rate});
    clamp_target_rate.set_default(p.clamp_target);
    clamp_after_time_inc.set_default(p.clamp_after_time_inc);
    hyper_increase.set_default(p.hyper == dcqcn_hyper_rule::timer ? "timer" : "both-counters");
    hyper_step.set_default(p.hyper_step_fixed ? "fixed" : "stage-scaled");
    alpha_update.set_default(p.alpha_update == dcqcn_alpha_rule::per_window ? "per-window" : "per-cnp");
    cut_alpha.set_default(p.cut_after_alpha_update ? "after-update" : "before-update");
    rules_ = rules();
  }
  const choice_param* profile_param() const override { return &profile; }
  // What every CNP, timer and (once limited) frame reads: packed at the first event of the run,
  // again after a live write (g, rai, rhai, min_rate); the line rate as it is now.
  const dcqcn_rp_config& config() const {
    dcqcn_rp_config& c = config_.get([this] {
      dcqcn_rp_config c = rules_;
      c.g = g();
      c.byte_counter = byte_counter().bytes;
      c.fast_recovery = static_cast<uint32_t>(fast_recovery());
      c.rai = rai().bps;
      c.rhai = rhai().bps;
      c.min_rate = min_rate().bps;
      return c;
    });
    c.line_rate = mac_.wire().current_rate().bps;
    return c;
  }

  // Defaults: the DCQCN paper's ([DCQCN], as [CoNEXT16] uses them: the "paper" profile); R_HAI and
  // the minimum rate, which the paper does not give, from the authors' ns-3 configuration
  // ([ns3-rdma] mix/config.txt).
  param<double> g{nic_, [] {
                    return param_spec<double>{
                        "rp.g", "dcqcn: alpha gain g (paper: 1/256)", 1.0 / 256, 0.0, 1.0, param_change::live};
                  }};
  param<double> alpha0{nic_, [] {
                         return param_spec<double>{
                             "rp.alpha_init", "dcqcn: alpha of a flow before its first CNP (paper: 1)", 1.0, 0.0, 1.0};
                       }};
  param<sc_core::sc_time> alpha_timer{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "rp.alpha_timer", "dcqcn: alpha decays by (1 - g) after this long without a CNP (paper: 55 us)",
            sc_core::sc_time(55, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS),
            sc_core::sc_time(1, sc_core::SC_SEC)};
      }};
  param<sc_core::sc_time> timer{nic_, [] {
                                  return param_spec<sc_core::sc_time>{
                                      "rp.timer", "dcqcn: rate-increase timer period T (paper: 55 us)",
                                      sc_core::sc_time(55, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS),
                                      sc_core::sc_time(1, sc_core::SC_SEC)};
                                }};
  param<byte_count> byte_counter{
      nic_, [] {
        return param_spec<byte_count>{
            "rp.byte_counter", "dcqcn: a rate-increase event every this many wire bytes sent, 0 off (paper: 10 MB)",
            byte_count{10'000'000}, byte_count{0}, byte_count{1ull << 40}};
      }};
  param<uint64_t> fast_recovery{
      nic_, [] {
        return param_spec<uint64_t>{"rp.fast_recovery", "dcqcn: fast-recovery steps F (paper: 5)", 5, 0, 1000};
      }};
  param<data_rate> rai{nic_, [] {
                         return param_spec<data_rate>{
                             "rp.rai",        "dcqcn: additive increase step R_AI (paper: 40 Mb/s)",
                             data_rate{40e6}, data_rate{0},
                             data_rate{1e13}, param_change::live};
                       }};
  param<data_rate> rhai{nic_, [] {
                          return param_spec<data_rate>{
                              "rp.rhai",        "dcqcn: hyper increase step R_HAI (ns3-rdma: 200 Mb/s)",
                              data_rate{200e6}, data_rate{0},
                              data_rate{1e13},  param_change::live};
                        }};
  param<data_rate> min_rate{nic_, [] {
                              return param_spec<data_rate>{
                                  "rp.min_rate",    "dcqcn: lowest rate a cut may set (ns3-rdma: 100 Mb/s)",
                                  data_rate{100e6}, data_rate{1e3},
                                  data_rate{1e13},  param_change::live};
                            }};
  param<sc_core::sc_time> rate_decrease_interval{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "rp.rate_decrease_interval",
            "dcqcn: 0: cut at each CNP (paper); else at most one cut per this interval, at its tick, if a CNP came "
            "(ConnectX rate_reduce_monitor_period, HPCC-sim RATE_DECREASE_INTERVAL: 4 us)",
            sc_core::sc_time(0, sc_core::SC_US), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
      }};
  param<bool> clamp_target_rate{nic_, [] {
                                  return param_spec<bool>{
                                      "rp.clamp_target_rate",
                                      "dcqcn: a cut sets the target to the current rate (paper: true; ConnectX "
                                      "clamp_tgt_rate and HPCC-sim CLAMP_TARGET_RATE: false)",
                                      true, false, true};
                                }};
  param<bool> clamp_after_time_inc{
      nic_, [] {
        return param_spec<bool>{
            "rp.clamp_target_rate_after_time_inc",
            "dcqcn: with clamp_target_rate false, a cut sets the target to the current rate only if a rate-timer "
            "increase came since the last cut (ConnectX clamp_tgt_rate_after_time_inc, HPCC-sim: true)",
            false, false, true};
      }};
  choice_param hyper_increase{nic_, [] {
                                return choice_spec{
                                    "rp.hyper_increase",
                                    "dcqcn: hyper increase once both the timer and byte stages pass F (both-counters, "
                                    "paper), or the timer stage alone after one additive step (timer, HPCC-sim)",
                                    "both-counters",
                                    {"both-counters", "timer"}};
                              }};
  choice_param hyper_step{nic_, [] {
                            return choice_spec{"rp.hyper_step",
                                               "dcqcn: a hyper step adds R_HAI x the stages past F (stage-scaled, QCN "
                                               "style) or R_HAI (fixed: ConnectX, HPCC-sim)",
                                               "stage-scaled",
                                               {"stage-scaled", "fixed"}};
                          }};
  choice_param alpha_update{
      nic_, [] {
        return choice_spec{
            "rp.alpha_update",
            "dcqcn: alpha rises at each CNP and decays per rp.alpha_timer without one (per-cnp, paper), or updates "
            "once per rp.alpha_timer window by whether a CNP came (per-window: ConnectX, HPCC-sim)",
            "per-cnp",
            {"per-cnp", "per-window"}};
      }};
  choice_param cut_alpha{nic_, [] {
                           return choice_spec{
                               "rp.cut_alpha",
                               "dcqcn, per-cnp alpha: the cut uses alpha before this CNP's update (paper) or after",
                               "before-update",
                               {"before-update", "after-update"}};
                         }};
  choice_param profile{nic_, [] {
                         return choice_spec{
                             "rp.profile",
                             "dcqcn: the defaults of every rule and parameter above: the paper's, ConnectX firmware's "
                             "or the HPCC ns-3 simulator's (docs/models/dcqcn.md); explicit settings win",
                             "paper",
                             {"paper", "connectx", "hpcc-sim"}};
                       }};
  std::unique_ptr<choice_param> ce_reaction, ue_reaction;  // dcqcn-tcd only

  // What to do with this CNP: always a cut for plain DCQCN; by its code point for dcqcn-tcd.
  dcqcn_reaction reaction_to(const packet_header& cnp) const {
    if (!ce_reaction) return dcqcn_reaction::cut;
    roce::headers w;
    if (!cnp.image || !roce::decode(cnp.image->data(), w)) return dcqcn_reaction::ignore;
    return dcqcn_reaction_named(w.ecn == 2 ? (*ue_reaction)() : (*ce_reaction)());
  }

 private:
  // The rules, read once the overrides are final (the choices are not read per event).
  dcqcn_rp_config rules() const {
    dcqcn_rp_config c;
    c.clamp_target = clamp_target_rate();
    c.clamp_after_time_inc = clamp_after_time_inc();
    c.hyper = hyper_increase() == "timer" ? dcqcn_hyper_rule::timer : dcqcn_hyper_rule::both_counters;
    c.hyper_step_fixed = hyper_step() == "fixed";
    c.alpha_update = alpha_update() == "per-window" ? dcqcn_alpha_rule::per_window : dcqcn_alpha_rule::per_cnp;
    c.cut_after_alpha_update = cut_alpha() == "after-update";
    return c;
  }
  dcqcn_rp_config rules_;
  mutable param_cache<dcqcn_rp_config> config_;
};

// One flow's machine in time. Timers: the alpha timer (restarted by each CNP under per-cnp, a
// fixed grid from the first CNP under per-window), the rate timer (restarted by each cut) and,
// with rp.rate_decrease_interval > 0, the rate-decrease tick (a grid from the first CNP of a
// busy spell); one wake-up of the event queue serves the three.
template <class Machine>
class dcqcn_rp_timing : public reaction_point_if, public timed_client {
 public:
  // make_state: the flow's machine at its first CNP, from the line rate and alpha_init.
  using state_maker = std::function<Machine(double line_rate, double alpha0)>;
  dcqcn_rp_timing(
      const dcqcn_rp_maker& maker, rate_limiter_if& limiter,
      state_maker make_state = [](double line, double alpha0) { return Machine(line, alpha0); })
      : maker_(maker), limiter_(limiter), make_state_(std::move(make_state)) {}

  void on_feedback(const packet_header& h, uint64_t now) override {
    if (h.kind != frame_kind::cnp) return;
    const dcqcn_reaction r = maker_.reaction_to(h);
    if (r == dcqcn_reaction::ignore) return;
    const dcqcn_rp_config& c = maker_.config();
    const bool first = !state_;
    if (first) state_.emplace(make_state_(c.line_rate, maker_.alpha0()));
    const uint64_t tau = to_ps(maker_.alpha_timer());
    if (alpha_due_ && now >= alpha_due_) {  // catch up on the alpha periods missed while idle
      const uint64_t k = (now - alpha_due_) / tau + 1;
      state_->on_missed_alpha_periods(c, k);
      alpha_due_ += k * tau;
    }
    const bool windows = c.alpha_update == dcqcn_alpha_rule::per_window;
    if (r == dcqcn_reaction::hold) {
      state_->on_hold();
      restart(c, now);
    } else if (const uint64_t interval = to_ps(maker_.rate_decrease_interval()); interval == 0) {
      state_->on_cnp(c);
      restart(c, now);
    } else {
      if (!first) state_->note_cnp(c);  // HPCC-sim: the first CNP sets alpha, the window starts clean
      cut_pending_ = true;
      if (!decrease_due_) decrease_due_ = now + interval;
    }
    if (windows && !alpha_due_) alpha_due_ = now + tau;
    active_ = true;
    event_queue::instance().schedule(this, next_due());
  }
  void on_send(const packet_header& h, uint64_t) override {
    if (active_ && state_->on_bytes(maker_.config(), h.size)) limiter_.set_rate(data_rate{state_->rc()});
  }
  void on_timer() override {
    const uint64_t now = now_ps();
    const dcqcn_rp_config& c = maker_.config();
    if (alpha_due_ && alpha_due_ <= now) {
      state_->on_alpha_timer(c);
      alpha_due_ += to_ps(maker_.alpha_timer());
    }
    if (decrease_due_ && decrease_due_ <= now) {
      decrease_due_ += to_ps(maker_.rate_decrease_interval());
      if (cut_pending_) {
        cut_pending_ = false;
        state_->cut(c);
        restart(c, now);
      }
    }
    if (rate_due_ && rate_due_ <= now) {
      state_->on_rate_timer(c);
      rate_due_ += to_ps(maker_.timer());
      limiter_.set_rate(data_rate{state_->rc()});
    }
    active_ = cut_pending_ || state_->rc() < c.line_rate || state_->rt() < c.line_rate;
    if (active_)
      event_queue::instance().schedule(this, next_due());
    else
      decrease_due_ = 0;  // the next busy spell starts its own grid; alpha periods are caught up at the next CNP
  }
  data_rate target_rate() const override { return data_rate{state_ ? state_->rt() : 0.0}; }

 private:
  // After a cut or hold: the new rate, and the rate timer (and per-cnp alpha timer) restart.
  void restart(const dcqcn_rp_config& c, uint64_t now) {
    limiter_.set_rate(data_rate{state_->rc()});
    if (c.alpha_update == dcqcn_alpha_rule::per_cnp) alpha_due_ = now + to_ps(maker_.alpha_timer());
    rate_due_ = now + to_ps(maker_.timer());
  }
  uint64_t next_due() const {
    uint64_t t = UINT64_MAX;
    for (uint64_t d : {alpha_due_, rate_due_, decrease_due_})
      if (d) t = std::min(t, d);
    return t;
  }

  const dcqcn_rp_maker& maker_;
  rate_limiter_if& limiter_;
  state_maker make_state_;
  std::optional<Machine> state_;                              // from the first CNP
  uint64_t alpha_due_ = 0, rate_due_ = 0, decrease_due_ = 0;  // 0: not running
  bool cut_pending_ = false;                                  // a CNP came since the last rate-decrease tick
  bool active_ = false;  // timers and byte counter running (below line rate, or a cut due)
};

}  // namespace sluice
