// Reaction point "timely": TIMELY's RTT-gradient rate law (timely_rp_state, timely_rp.h) for each
// flow the NIC sends, driving the flow's rate limiter (effective at once). The RTT comes from
// the receiver's ACKs (notification point "timely"): the reaction point keeps, for every frame
// the flow sends, its end offset, send time (its first bit) and wire size, in a ring; an ACK
// acknowledging offset X completes the frame that ended at X, and
//   RTT = ACK arrival - that frame's send time - its serialization at the line rate
// (the paper's "completion time - send time - segment size / line rate" for a segment sent as a
// line-rate burst, with the segment's last frame standing for it: Sluice paces every frame, so
// the first frame's send time would count the pacing gaps; docs/models/timely.md). Parameters
// are declared once per NIC
// (<nic>.timely.<leaf>) by the maker and read at every completion, so overrides apply.
// timely.start: a new flow starts at C/(N+1), N the NIC's other active timely flows (the paper),
// its limiter set before its first frame leaves; or unlimited until its first ACK (line-rate).
#include "models/cc/timely/timely_rp.h"

#include <optional>
#include <vector>

#include "models/cc/reaction_point.h"
#include "models/cc/timely/timely_profiles.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/core/ring.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
using sc_core::sc_time;
using sc_core::SC_US;
struct timely_stats {
  uint64_t samples = 0, below = 0, above = 0, last_rtt_ps = 0;
};
const stat_desc stats[] = {
    {"rtt_samples", "samples", "RTT samples that updated a rate (completions at least timely.min_rtt apart per flow)",
     [](const void* m, int) { return static_cast<double>(static_cast<const timely_stats*>(m)->samples); },
     stat_kind::counter},
    {"rtt_below_t_low", "samples", "RTT samples below timely.t_low",
     [](const void* m, int) { return static_cast<double>(static_cast<const timely_stats*>(m)->below); },
     stat_kind::counter},
    {"rtt_above_t_high", "samples", "RTT samples above timely.t_high",
     [](const void* m, int) { return static_cast<double>(static_cast<const timely_stats*>(m)->above); },
     stat_kind::counter},
    {"last_rtt", "us", "the last RTT sample of any of the NIC's timely flows",
     [](const void* m, int) { return static_cast<double>(static_cast<const timely_stats*>(m)->last_rtt_ps) * 1e-6; }},
};

class timely_rp;

class timely_maker final : public reaction_point_maker {
  const sc_core::sc_object* nic_;  // first: the parameters below are declared under it
  const mac_port& mac_;

 public:
  timely_maker(const sc_core::sc_object& nic, const mac_port& mac) : nic_(&nic), mac_(mac) {
    stat_registry::instance().add(&nic, "timely", stats, 4, &stats_);
    config_.watch({&alpha, &beta, &delta});
    // The patched law's settings do nothing under the original one, the HPCC simulator's hyper
    // step nothing under the paper's rules.
    for (param_base* p : std::initializer_list<param_base*>{&rtt_ref, &patched_beta})
      p->inert_when(
          [](const void* m, const param_base&) -> std::string {
            const timely_maker& t = *static_cast<const timely_maker*>(m);
            return t.variant() == "original" ? t.variant.name() + " is 'original'" : "";
          },
          this);
    hai_step.inert_when(
        [](const void* m, const param_base&) -> std::string {
          const timely_maker& t = *static_cast<const timely_maker*>(m);
          return t.profile() == "paper" ? t.profile.name() + " is 'paper'" : "";
        },
        this);
  }
  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override;
  // The profile's values become the defaults, the rates scaled to the NIC's line rate; what the
  // scenario or --set gave stays.
  void derive_defaults() override {
    const timely_profile& p = *timely_profile_named(profile());
    const double line = wire_rate();
    const auto ps = [](uint64_t t) { return sc_time(static_cast<double>(t), sc_core::SC_PS); };
    t_low.set_default(ps(p.t_low_ps));
    t_high.set_default(ps(p.t_high_ps));
    min_rtt.set_default(ps(p.min_rtt_ps));
    alpha.set_default(p.alpha);
    beta.set_default(p.beta);
    delta.set_default(data_rate{p.delta_at(line)});
    hai_step.set_default(data_rate{p.hai_step_at(line)});
    hai_threshold.set_default(p.hai_threshold);
    hai_factor.set_default(p.hai_factor);
    min_fraction.set_default(p.min_fraction_at(line));
  }
  const choice_param* profile_param() const override { return &profile; }
  void check() const override {
    if (t_low() >= t_high())
      throw config_error(t_low.name() + ": " + t_low.value_string() + " is not below " + t_high.name() + " (" +
                         t_high.value_string() + ")");
  }
  double wire_rate() const { return mac_.has_wire() ? mac_.wire().current_rate().bps : 0; }
  // What every ACK reads: packed at the first of the run, again after a live write (alpha, beta,
  // delta); the rates that follow the line rate are set per use.
  timely_rp_config config(double line_rate) const {
    timely_rp_config c = config_.get([this] { return pack(); });
    c.min_rate = min_fraction() * line_rate;
    c.line_rate = line_rate;
    return c;
  }
  timely_rp_config pack() const {
    return {to_ps(t_low()),
            to_ps(t_high()),
            alpha(),
            beta(),
            delta().bps,
            to_ps(min_rtt()),
            static_cast<uint32_t>(hai_threshold()),
            hai_factor(),
            0,
            0,
            static_cast<timely_rp_config::variant_t>(variant.index()),
            to_ps(rtt_ref()),
            patched_beta(),
            static_cast<timely_rp_config::profile_t>(profile.index()),
            hai_step().bps};
  }
  // Does a new flow start at its fair share (else unlimited until its first ACK)?
  bool fair_share_start() const { return start.index() == 1 || (start.index() == 0 && profile.index() == 0); }
  // The NIC's timely flows that have started and not sent their last byte, but `self`.
  std::size_t active_flows_but(const timely_rp* self) const;
  std::vector<const timely_rp*> rps_;  // every flow's reaction point of this NIC

  // Defaults: the TIMELY paper's ([TIMELY] §6, as [CoNEXT16]'s validation table quotes them); the
  // profile's replace them in derive_defaults (timely_profiles.h).
  param<sc_time> t_low{nic_, [] {
                         return param_spec<sc_time>{"timely.t_low",
                                                    "timely: below this RTT, additive increase only (paper: 50 us)",
                                                    sc_time(50, SC_US), sc_time(0, SC_US), sc_time(1, sc_core::SC_SEC)};
                       }};
  param<sc_time> t_high{nic_, [] {
                          return param_spec<sc_time>{
                              "timely.t_high",
                              "timely: above this RTT, decrease by beta (1 - t_high / RTT) (paper: 500 us)",
                              sc_time(500, SC_US), sc_time(0, SC_US), sc_time(1, sc_core::SC_SEC)};
                        }};
  param<double> alpha{nic_, [] {
                        return param_spec<double>{"timely.alpha",
                                                  "timely: EWMA weight of the newest RTT difference (paper as quoted "
                                                  "by CoNEXT'16: 0.875; the authors' code: 0.02)",
                                                  0.875,
                                                  0.0,
                                                  1.0,
                                                  param_change::live};
                      }};
  param<double> beta{nic_, [] {
                       return param_spec<double>{"timely.beta", "timely: multiplicative decrease factor (paper: 0.8)",
                                                 0.8,           0.0,
                                                 1.0,           param_change::live};
                     }};
  param<data_rate> delta{
      nic_, [] {
        return param_spec<data_rate>{
            "timely.delta",
            "timely: additive increase step per update (paper: 10 Mb/s; hpcc-sim: 10 Mb/s per 10 Gb/s of line rate)",
            data_rate{10e6},
            data_rate{0},
            data_rate{1e12},
            param_change::live};
      }};
  param<sc_time> min_rtt{nic_, [] {
                           return param_spec<sc_time>{
                               "timely.min_rtt",
                               "timely: minimum RTT normalizing the gradient (CoNEXT'16, ns3-rdma: 20 us)",
                               sc_time(20, SC_US), sc_time(1, sc_core::SC_NS), sc_time(1, sc_core::SC_SEC)};
                         }};
  param<uint64_t> hai_threshold{
      nic_, [] {
        return param_spec<uint64_t>{
            "timely.hai_threshold",
            "timely: consecutive completions with gradient <= 0 before hyper-active increase (paper: 5)", 5, 1,
            1000000};
      }};
  param<double> hai_factor{nic_, [] {
                             return param_spec<double>{"timely.hai_factor",
                                                       "timely: N, the HAI step in units of delta (paper: 5)", 5.0, 1.0,
                                                       1000.0};
                           }};
  param<double> min_fraction{
      nic_, [] {
        return param_spec<double>{
            "timely.min_rate",
            "timely: lowest rate as a fraction of the line rate (ns3-rdma: 0.01; hpcc-sim: 1 Gb/s over the line rate)",
            0.01, 1e-6, 1.0};
      }};
  choice_param variant{nic_, [] {
                         return choice_spec{
                             "timely.variant",
                             "timely: original (Algorithm 1) or patched (CoNEXT'16: a weight of the gradient and the "
                             "error against timely.rtt_ref between T_low and T_high; a unique fair fixed point)",
                             "original",
                             {"original", "patched"}};
                       }};
  param<sc_time> rtt_ref{nic_, [] {
                           return param_spec<sc_time>{
                               "timely.rtt_ref", "timely patched: the reference RTT of the error term (choice)",
                               sc_time(100, SC_US), sc_time(1, sc_core::SC_NS), sc_time(1, sc_core::SC_SEC)};
                         }};
  param<double> patched_beta{nic_, [] {
                               return param_spec<double>{
                                   "timely.patched_beta",
                                   "timely patched: decrease factor of the error term (CoNEXT'16 experiments: 0.008)",
                                   0.008, 0.0, 1.0};
                             }};
  choice_param profile{
      nic_, [] {
        return choice_spec{
            "timely.profile",
            "timely rules: paper (an update per max(segment time, min_rtt), HAI on the "
            "gradient branch) or hpcc-sim (the HPCC ns-3 simulator: an update per RTT, "
            "a hai_step after hai_threshold increases in a row, line-rate start; its values scaled to the "
            "line rate); explicit settings win",
            "paper",
            {"paper", "hpcc-sim"}};
      }};
  param<data_rate> hai_step{nic_, [] {
                              return param_spec<data_rate>{
                                  "timely.hai_step",
                                  "timely hpcc-sim: the hyper step R_HAI of an increase after hai_threshold in a row "
                                  "(hpcc-sim: 50 Mb/s per 10 Gb/s of line rate)",
                                  data_rate{50e6}, data_rate{0}, data_rate{1e12}};
                            }};
  choice_param start{
      nic_, [] {
        return choice_spec{
            "timely.start",
            "timely: a new flow's rate: fair-share C/(N+1), N the NIC's other active timely flows (paper), line-rate "
            "(unlimited until its first ACK), or as the profile says (paper: fair-share, hpcc-sim: line-rate)",
            "profile",
            {"profile", "fair-share", "line-rate"}};
      }};
  mutable timely_stats stats_;
  mutable param_cache<timely_rp_config> config_;
};

class timely_rp final : public reaction_point_if {
 public:
  timely_rp(const timely_maker& maker, const flow& f, rate_limiter_if& limiter)
      : maker_(maker), flow_(f), source_rate_(f.spec.rate.bps), limiter_(limiter) {}

  // Started, and not past its last byte (a finite flow that has sent all is no longer active).
  bool active() const {
    return started_ && !(flow_.spec.kind == flow_kind::finite && flow_.stats.tx_bytes >= flow_.spec.size);
  }

  void on_send(const packet_header& h, uint64_t now) override {
    if (!started_) start();
    next_offset_ = h.seq + h.payload;
    // Without ACKs (no timely NP at the receiver) nothing would ever be acknowledged: keep the
    // records of the last max_outstanding frames only (64 MiB in flight at 1 KB frames).
    if (sent_.size() >= max_outstanding) sent_.pop_front();
    sent_.push_back({h.seq + h.payload, now, h.size});
  }
  void on_feedback(const packet_header& h, uint64_t now) override {
    if (h.kind != frame_kind::ack) return;
    while (!sent_.empty() && sent_.front().end < h.seq) sent_.pop_front();  // acknowledged by this ACK too
    if (sent_.empty() || sent_.front().end != h.seq) return;                // not a frame we sent (stale)
    const sent_frame s = sent_.pop_front();
    const double wire = maker_.wire_rate();
    const uint64_t serialization = wire > 0 ? static_cast<uint64_t>(s.size * 8.0 / wire * 1e12) : 0;
    const uint64_t rtt = now - s.sent_ps > serialization ? now - s.sent_ps - serialization : 0;
    const timely_rp_config c = maker_.config(line_rate(wire));
    if (!state_) state_.emplace(c.line_rate);
    if (state_->on_rtt(rtt, now, c, h.seq, next_offset_) == timely_rp_state::branch::none) return;
    limiter_.set_rate(data_rate{state_->rate()});
    timely_stats& st = maker_.stats_;
    ++st.samples;
    st.below += rtt < c.t_low_ps;
    st.above += rtt > c.t_high_ps;
    st.last_rtt_ps = rtt;
  }

 private:
  static constexpr std::size_t max_outstanding = 1 << 16;
  struct sent_frame {
    uint64_t end = 0, sent_ps = 0;
    uint32_t size = 0;
  };
  double line_rate(double wire) const {
    return source_rate_ > 0 && (wire <= 0 || source_rate_ < wire) ? source_rate_ : wire;
  }
  // The flow's first frame: with a fair-share start, its rate is C/(N+1) from this frame on.
  void start() {
    const std::size_t others = maker_.active_flows_but(this);
    started_ = true;
    if (!maker_.fair_share_start()) return;
    const double rate = line_rate(maker_.wire_rate()) / static_cast<double>(others + 1);
    state_.emplace(rate);
    limiter_.set_rate(data_rate{rate});
  }

  const timely_maker& maker_;
  const flow& flow_;
  double source_rate_;
  rate_limiter_if& limiter_;
  ring<sent_frame> sent_;                 // frames sent and not yet acknowledged, in send order
  std::optional<timely_rp_state> state_;  // from the first frame (fair share) or the first RTT sample
  uint64_t next_offset_ = 0;              // the flow's next byte to send
  bool started_ = false;
};

std::size_t timely_maker::active_flows_but(const timely_rp* self) const {
  std::size_t n = 0;
  for (const timely_rp* rp : rps_) n += rp != self && rp->active();
  return n;
}

std::unique_ptr<reaction_point_if> timely_maker::make(const flow& f, rate_limiter_if& limiter) {
  auto rp = std::make_unique<timely_rp>(*this, f, limiter);
  rps_.push_back(rp.get());
  return rp;
}

const policy_registrar<rp_policies> reg{
    "timely", "TIMELY: RTT-gradient rate control from the receiver's ACKs (timely.*; needs np=timely at receivers)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<timely_maker>(nic, mac); }};
}  // namespace
}  // namespace sluice
