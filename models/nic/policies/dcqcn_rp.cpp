// Reaction point "dcqcn": the DCQCN rate machine (dcqcn_rp_state, dcqcn_rp.h) of each flow the
// NIC sends, driving the flow's rate limiter (rate_limiter_if::set_rate, effective at once).
// Its parameters are declared once per NIC by the maker (<nic>.rp.<leaf>) and read by every
// flow's reaction point at each event, so overrides apply. A flow runs unlimited until its first
// CNP; from then on it has an alpha timer (tau') and a rate timer (T), both restarted by each
// CNP and served by one wake-up of the event queue (timed_client), and a byte counter over the
// wire bytes it sends. Once rc and rt are back at the line rate the timers stop; the alpha
// decays missed meanwhile are applied at the next CNP.
//
// Reaction point "dcqcn-tcd": the same machine reading TCD's code point from the CNP's IPv4 ECN
// bits (dcqcn-tcd NP): a CE CNP gets <nic>.rp.ce_reaction, a UE CNP <nic>.rp.ue_reaction, each
// `cut` (DCQCN's cut), `hold` (dcqcn_rp_state::on_hold: no cut, no increase until the next
// stage event) or `ignore`; defaults cut and hold (docs/models/tcd.md).
#include <optional>

#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/nic/nic_policies.h"
#include "models/nic/policies/dcqcn_rp.h"
#include "models/protocol/roce_frame.h"

namespace sluice {
namespace {
using sc_core::sc_time;
using sc_core::SC_US;
// Defaults: the DCQCN paper's (DEFAULTS.md 1.2 "paper" profile); R_HAI and the minimum rate,
// which the paper does not give, from the authors' ns-3 configuration (ns3-rdma mix/config.txt).
const param_spec<double> g_spec{"rp.g", "dcqcn: alpha gain g (paper: 1/256)", 1.0 / 256, 0.0, 1.0};
const param_spec<double> alpha0_spec{"rp.alpha_init", "dcqcn: alpha of a flow before its first CNP (paper: 1)", 1.0,
                                     0.0, 1.0};
const param_spec<sc_time> alpha_timer_spec{"rp.alpha_timer",
                                           "dcqcn: alpha decays by (1 - g) after this long without a CNP (paper: 55 us)",
                                           sc_time(55, SC_US), sc_time(1, sc_core::SC_NS), sc_time(1, sc_core::SC_SEC)};
const param_spec<sc_time> timer_spec{"rp.timer", "dcqcn: rate-increase timer period T (paper: 55 us)",
                                     sc_time(55, SC_US), sc_time(1, sc_core::SC_NS), sc_time(1, sc_core::SC_SEC)};
const param_spec<byte_count> bytes_spec{"rp.byte_counter",
                                        "dcqcn: a rate-increase event every this many wire bytes sent, 0 off "
                                        "(paper: 10 MB)",
                                        byte_count{10'000'000}, byte_count{0}, byte_count{1ull << 40}};
const param_spec<uint64_t> f_spec{"rp.fast_recovery", "dcqcn: fast-recovery steps F (paper: 5)", 5, 0, 1000};
const param_spec<data_rate> rai_spec{"rp.rai", "dcqcn: additive increase step R_AI (paper: 40 Mb/s)",
                                     data_rate{40e6}, data_rate{0}, data_rate{1e13}};
const param_spec<data_rate> rhai_spec{"rp.rhai", "dcqcn: hyper increase step R_HAI (ns3-rdma: 200 Mb/s)",
                                      data_rate{200e6}, data_rate{0}, data_rate{1e13}};
const param_spec<data_rate> min_spec{"rp.min_rate", "dcqcn: lowest rate a cut may set (ns3-rdma: 100 Mb/s)",
                                     data_rate{100e6}, data_rate{1e3}, data_rate{1e13}};

const choice_spec ce_reaction_spec{"rp.ce_reaction", "dcqcn-tcd: reaction to a CNP for a CE (congestion) frame",
                                   "cut", {"cut", "hold", "ignore"}};
const choice_spec ue_reaction_spec{"rp.ue_reaction",
                                   "dcqcn-tcd: reaction to a CNP for a UE (undetermined: perhaps a victim) frame",
                                   "hold", {"cut", "hold", "ignore"}};
enum class reaction { cut, hold, ignore };
reaction reaction_named(const std::string& name) {
  return name == "cut" ? reaction::cut : name == "hold" ? reaction::hold : reaction::ignore;
}

class dcqcn_maker final : public reaction_point_maker {
 public:
  dcqcn_maker(const sc_core::sc_object& nic, const mac_port& mac, bool ternary)
      : g(&nic, g_spec),
        alpha0(&nic, alpha0_spec),
        alpha_timer(&nic, alpha_timer_spec),
        timer(&nic, timer_spec),
        byte_counter(&nic, bytes_spec),
        fast_recovery(&nic, f_spec),
        rai(&nic, rai_spec),
        rhai(&nic, rhai_spec),
        min_rate(&nic, min_spec),
        mac_(mac) {
    if (ternary) {
      ce_reaction = std::make_unique<choice_param>(&nic, ce_reaction_spec);
      ue_reaction = std::make_unique<choice_param>(&nic, ue_reaction_spec);
    }
  }
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if& limiter) override;
  dcqcn_rp_config config() const {
    return {g(), byte_counter().bytes, static_cast<uint32_t>(fast_recovery()), rai().bps, rhai().bps,
            min_rate().bps, mac_.wire().current_rate().bps};
  }

  param<double> g, alpha0;
  param<sc_time> alpha_timer, timer;
  param<byte_count> byte_counter;
  param<uint64_t> fast_recovery;
  param<data_rate> rai, rhai, min_rate;
  std::unique_ptr<choice_param> ce_reaction, ue_reaction;  // dcqcn-tcd only

  // What to do with this CNP: always a cut for plain DCQCN; by its code point for dcqcn-tcd.
  reaction reaction_to(const packet_header& cnp) const {
    if (!ce_reaction) return reaction::cut;
    roce::headers w;
    if (!cnp.image || !roce::decode(cnp.image->data(), w)) return reaction::ignore;
    return reaction_named(w.ecn == 2 ? (*ue_reaction)() : (*ce_reaction)());
  }

 private:
  const mac_port& mac_;
};

class dcqcn_rp final : public reaction_point_if, public timed_client {
 public:
  dcqcn_rp(const dcqcn_maker& maker, rate_limiter_if& limiter) : maker_(maker), limiter_(limiter) {}

  void on_feedback(const packet_header& h, uint64_t now) override {
    if (h.kind != frame_kind::cnp) return;
    const reaction r = maker_.reaction_to(h);
    if (r == reaction::ignore) return;
    const dcqcn_rp_config c = maker_.config();
    if (!state_) state_.emplace(c.line_rate, maker_.alpha0());
    const uint64_t tau = to_ps(maker_.alpha_timer());
    if (alpha_due_ && now >= alpha_due_) state_->on_alpha_timer(c, (now - alpha_due_) / tau + 1);  // catch up
    if (r == reaction::cut)
      state_->on_cnp(c);
    else
      state_->on_hold();
    limiter_.set_rate(data_rate{state_->rc()});
    alpha_due_ = now + tau;
    rate_due_ = now + to_ps(maker_.timer());
    active_ = true;
    event_queue::instance().schedule(this, std::min(alpha_due_, rate_due_));
  }
  void on_send(const packet_header& h, uint64_t) override {
    if (active_ && state_->on_bytes(maker_.config(), h.size)) limiter_.set_rate(data_rate{state_->rc()});
  }
  void on_timer() override {
    const uint64_t now = now_ps();
    const dcqcn_rp_config c = maker_.config();
    if (alpha_due_ <= now) {
      state_->on_alpha_timer(c);
      alpha_due_ += to_ps(maker_.alpha_timer());
    }
    if (rate_due_ <= now) {
      state_->on_rate_timer(c);
      rate_due_ += to_ps(maker_.timer());
      limiter_.set_rate(data_rate{state_->rc()});
    }
    active_ = state_->rc() < c.line_rate || state_->rt() < c.line_rate;
    if (active_) event_queue::instance().schedule(this, std::min(alpha_due_, rate_due_));
  }
  data_rate target_rate() const override { return data_rate{state_ ? state_->rt() : 0.0}; }

 private:
  const dcqcn_maker& maker_;
  rate_limiter_if& limiter_;
  std::optional<dcqcn_rp_state> state_;  // from the first CNP
  uint64_t alpha_due_ = 0, rate_due_ = 0;
  bool active_ = false;  // timers and byte counter running (below line rate)
};

std::unique_ptr<reaction_point_if> dcqcn_maker::make(const flow&, rate_limiter_if& limiter) {
  return std::make_unique<dcqcn_rp>(*this, limiter);
}

const policy_registrar<rp_policies> reg{
    "dcqcn", "DCQCN: alpha-based rate cut per CNP, fast recovery, additive and hyper increase (rp.*)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<dcqcn_maker>(nic, mac, false); }};
const policy_registrar<rp_policies> reg_tcd{
    "dcqcn-tcd", "DCQCN reading TCD's code point from the CNP: rp.ce_reaction (cut) and rp.ue_reaction (hold)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<dcqcn_maker>(nic, mac, true); }};
}  // namespace
}  // namespace sluice
