// Reaction point "asm": ASM's variable-structure rate law (asm_rp_state) for each flow the NIC
// sends. An ASM CNM (asm_frame.h) gives the 8-bit Qoff and Qdelta; the law picks its coefficient
// set by the signs of sigma = Qoff + w Qdelta and Qoff, its gain by the distance to the line and
// to the stable point, and moves the rate by a fraction of itself. A decrease associates the
// limiter with the CNM's CPID; an increase counts only from that CPID. Parameters <nic>.asm.<leaf>,
// declared once per NIC by the maker and read at every CNM. See docs/models/asm.md.
#include "models/cc/asm/asm_frame.h"
#include "models/cc/asm/asm_rp_state.h"
#include "models/cc/asm/asm_settings.h"
#include "models/cc/reaction_point.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/core/stats.h"

namespace sluice {
namespace {

param_spec<double> gain_spec(const char* name, const char* description, double value) {
  return param_spec<double>{name, description, value, 0.0, 1.0};
}

// The ASM reaction points of one NIC: its parameters and counters, each one member declaration
// under the NIC ("h0.asm.alpha1", "h0.asm.decreases"), and the NIC's port for the line rate.
class asm_maker final : public reaction_point_maker {
 public:
  asm_maker(const sc_core::sc_object& nic, const mac_port& mac) : nic_(&nic), mac_(mac) {
    config_.watch({&boost, &sigma_band, &qoff_band, &max_decrease, &max_increase, &fairness, &min_rate,
                   &active_increase, &active_interval});
  }
  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override;
  // Packed at the first feedback of the run and again after a live write; the line rate, which
  // follows the link, is set at each use.
  const asm_rp_config& config(double source_rate) const {
    asm_rp_config& c = config_.get([this] {
      const asm_settings& g = asm_settings::get();
      return asm_rp_config{g.w(),
                           static_cast<double>(g.qoff_quantum().bytes),
                           static_cast<double>(g.qdelta_quantum().bytes),
                           alpha1(),
                           beta1(),
                           alpha2(),
                           beta2(),
                           boost(),
                           static_cast<double>(sigma_band().bytes),
                           static_cast<double>(qoff_band().bytes),
                           max_decrease(),
                           max_increase(),
                           fairness(),
                           min_rate().bps,
                           0.0,
                           active_increase(),
                           static_cast<double>(active_interval().bytes)};
    });
    double line = mac_.has_wire() ? mac_.wire().current_rate().bps : 0;
    if (source_rate > 0 && (line <= 0 || source_rate < line)) line = source_rate;
    c.line_rate = line;
    return c;
  }
  void check() const override {
    // The reaching condition's sufficient half (docs): beyond it sigma = 0 is no longer the
    // boundary between decrease and increase.
    const double w = asm_settings::get().w();
    if (beta1() > w * alpha1())
      throw config_error(std::string(nic_->name()) + ".asm.beta1: '" + std::to_string(beta1()) +
                         "' is above asm.w x asm.alpha1 (" + std::to_string(w * alpha1()) +
                         "): sigma = 0 would no longer separate decrease from increase");
    if (beta2() < w * alpha2())
      throw config_error(std::string(nic_->name()) + ".asm.beta2: '" + std::to_string(beta2()) +
                         "' is below asm.w x asm.alpha2 (" + std::to_string(w * alpha2()) +
                         "): the Qdelta wedges would not slow the approach");
  }

 private:
  const sc_core::sc_object* nic_;  // first: what follows is declared under it
  const mac_port& mac_;
  mutable param_cache<asm_rp_config> config_;

 public:
  param<double> alpha1{
      nic_,
      [] { return gain_spec("asm.alpha1", "asm RP: gain on Qoff (1/byte) where sigma and Qoff agree in sign", 5e-6); }};
  param<double> beta1{
      nic_, [] {
        return gain_spec("asm.beta1", "asm RP: gain on Qdelta (1/byte) where sigma and Qoff agree (<= w*alpha1)", 5e-6);
      }};
  param<double> alpha2{nic_, [] {
                         return gain_spec("asm.alpha2",
                                          "asm RP: gain on Qoff (1/byte) where sigma and Qoff disagree in sign", 3e-7);
                       }};
  param<double> beta2{nic_, [] {
                        return gain_spec("asm.beta2",
                                         "asm RP: gain on Qdelta (1/byte) where sigma and Qoff disagree (>= w*alpha2)",
                                         8e-6);
                      }};
  param<double> boost{nic_, [] {
                        return param_spec<double>{
                            "asm.boost",
                            "asm RP: gain factor far from the line (|sigma| > sigma_band) and near the "
                            "stable point (|Qoff| < qoff_band)",
                            2.0,
                            1.0,
                            100.0,
                            param_change::live};
                      }};
  param<byte_count> sigma_band{
      nic_, [] {
        return param_spec<byte_count>{
            "asm.sigma_band",       "asm RP: |sigma| above this is far from the line (boosted)",
            byte_count{16 * 1024},  byte_count{0},
            byte_count{1ull << 30}, param_change::live};
      }};
  param<byte_count> qoff_band{
      nic_, [] {
        return param_spec<byte_count>{
            "asm.qoff_band",        "asm RP: |Qoff| below this is near the stable point (boosted)",
            byte_count{1024},       byte_count{0},
            byte_count{1ull << 30}, param_change::live};
      }};
  param<double> max_decrease{
      nic_, [] {
        return param_spec<double>{
            "asm.max_decrease", "asm RP: one CNM cuts the rate by at most this fraction", 0.5, 0.0, 1.0,
            param_change::live};
      }};
  param<double> max_increase{
      nic_, [] {
        return param_spec<double>{
            "asm.max_increase", "asm RP: one CNM raises the rate by at most this fraction", 0.5, 0.0, 10.0,
            param_change::live};
      }};
  param<double> fairness{nic_, [] {
                           return param_spec<double>{
                               "asm.fairness",
                               "asm RP: weight of the line rate in a feedback's increase, which moves by "
                               "e*(R + fairness*line)/(1 + fairness) (0: a pure fraction of R, as the paper; the "
                               "shares converge by the active increase)",
                               0.0,
                               0.0,
                               10.0,
                               param_change::live};
                         }};
  param<double> active_increase{
      nic_, [] {
        return param_spec<double>{"asm.active_increase",
                                  "asm RP: fraction of the line rate added every active interval once the flow was "
                                  "cut (the same for every flow, so the shares converge; held after a feedback with "
                                  "Qoff > sigma_band; 0: none)",
                                  0.0025,
                                  0.0,
                                  0.1,
                                  param_change::live};
      }};
  param<byte_count> active_interval{
      nic_, [] {
        return param_spec<byte_count>{
            "asm.active_interval",  "asm RP: the active increase's interval, as the time to send this at the line rate",
            byte_count{150000},     byte_count{64},
            byte_count{1ull << 32}, param_change::live};
      }};
  param<data_rate> min_rate{nic_, [] {
                              return param_spec<data_rate>{
                                  "asm.min_rate",  "asm RP: lowest rate (as qcn.min_rate: 10 Mb/s)",
                                  data_rate{10e6}, data_rate{1e3},
                                  data_rate{1e13}, param_change::live};
                            }};
  mutable stat_counter decreases{nic_, "asm", [] {
                                   return stat_desc{"decreases", "frames", "ASM CNMs that cut a flow's rate", nullptr};
                                 }};
  mutable stat_counter increases{nic_, "asm", [] {
                                   return stat_desc{"increases", "frames",
                                                    "ASM CNMs that raised a flow's rate (from its associated CPID)",
                                                    nullptr};
                                 }};
  mutable stat_counter ignored{nic_, "asm", [] {
                                 return stat_desc{"ignored", "frames",
                                                  "ASM CNMs asking an increase from a CPID the flow is not "
                                                  "associated with (or before any decrease)",
                                                  nullptr};
                               }};
  mutable stat_counter active{nic_, "asm", [] {
                                return stat_desc{"active_increases", "updates",
                                                 "ASM active increases applied (each one or more intervals' steps)",
                                                 nullptr};
                              }};
  mutable stat_counter boosted{nic_, "asm", [] {
                                 return stat_desc{"boosted", "frames",
                                                  "ASM CNMs applied with the large gains (far from the line or "
                                                  "near the stable point)",
                                                  nullptr};
                               }};
};

class asm_rp final : public reaction_point_if {
 public:
  asm_rp(const asm_maker& maker, const flow& f, rate_limiter_if& limiter)
      : maker_(maker), source_rate_(f.spec.rate.bps), limiter_(limiter) {}

  void on_feedback(const packet_header& h, uint64_t now_ps) override {
    asm_cnm::fields f;
    if (!asm_cnm::read(h, f)) return;
    const asm_rp_config& c = maker_.config(source_rate_);
    const bool active = state_.on_clock(now_ps, c);  // what is due before the feedback's move
    maker_.active += active;
    const asm_rp_state::result r = state_.on_feedback(f.qoff, f.qdelta, f.cpid, c);
    maker_.ignored += r == asm_rp_state::result::ignored;
    const bool moved = r == asm_rp_state::result::decrease || r == asm_rp_state::result::increase;
    if (moved) {
      ++(r == asm_rp_state::result::decrease ? maker_.decreases : maker_.increases);
      maker_.boosted += state_.last().boosted;
    }
    if (moved || active) limiter_.set_rate(data_rate{state_.rate()});
  }
  // The active increase runs on the flow's own clock, read at each frame it sends (at least every
  // 1.2 ms at the 10 Mb/s minimum rate).
  void on_send(const packet_header& h, uint64_t now_ps) override {
    state_.on_sent(h.size);
    if (state_.on_clock(now_ps, maker_.config(source_rate_))) {
      ++maker_.active;
      limiter_.set_rate(data_rate{state_.rate()});
    }
  }

 private:
  const asm_maker& maker_;
  double source_rate_;
  rate_limiter_if& limiter_;
  asm_rp_state state_;
};

std::unique_ptr<reaction_point_if> asm_maker::make(const flow& f, rate_limiter_if& limiter) {
  return std::make_unique<asm_rp>(*this, f, limiter);
}

const policy_registrar<rp_policies> reg{
    "asm", "ASM: the adaptive sliding-mode rate law on Qoff and Qdelta, CPID association (asm.*)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<asm_maker>(nic, mac); }};
}  // namespace
}  // namespace sluice
