// Reaction point "ecm": ECM's AIMD rate limiter with CPID association (ecm_rp_state) for each flow
// the NIC sends. A BCN (a version-1 CNM, bcn_frame.h) gives Fb = -(Qoff + w Qdelta) from its two
// fields; negative feedback cuts and associates the limiter with the BCN's CPID, positive
// feedback from that CPID raises the rate, from any other is ignored. While limited, the flow's
// data frames are tagged with the CPID (reaction_point_if::tag). Parameters <nic>.ecm.<leaf>,
// declared once per NIC by the maker and read at every BCN. See docs/models/ecm.md.
#include "models/cc/ecm/ecm_rp_state.h"
#include "models/cc/ecm/ecm_settings.h"
#include "models/cc/reaction_point.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/core/stats.h"
#include "models/protocol/bcn_frame.h"

namespace sluice {
namespace {
// The ECM reaction points of one NIC: its parameters and counters, each one member declaration
// under the NIC ("h0.ecm.gd", "h0.ecm.negative_received"), and the NIC's port for the line rate.
class ecm_maker final : public reaction_point_maker {
 public:
  ecm_maker(const sc_core::sc_object& nic, const mac_port& mac) : nic_(&nic), mac_(mac) { config_.watch({&gd, &gi}); }
  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override;
  ecm_rp_config config(double source_rate) const {
    double line = mac_.has_wire() ? mac_.wire().current_rate().bps : 0;
    if (source_rate > 0 && (line <= 0 || source_rate < line)) line = source_rate;
    ecm_rp_config c = config_.get([this]() -> ecm_rp_config {
      return {gd(), max_decrease(), gi(), ru().bps, min_rate().bps, 0};
    });  // packed once, again after a live write (gd, gi)
    c.line_rate = line;
    return c;
  }

 private:
  const sc_core::sc_object* nic_;  // first: what follows is declared under it
  const mac_port& mac_;
  mutable param_cache<ecm_rp_config> config_;

 public:
  param<double> gd{nic_, [] {
                     return param_spec<double>{"ecm.gd",
                                               "ecm RP: decrease gain per byte of -Fb, R <- R*(1 + gd*Fb) (1/266240: "
                                               "half the rate at Fb = -(1+2w)*Qeq with the default Qeq)",
                                               1.0 / 266240,
                                               0.0,
                                               1.0,
                                               param_change::live};
                   }};
  param<double> max_decrease{nic_, [] {
                               return param_spec<double>{
                                   "ecm.max_decrease",
                                   "ecm RP: one negative BCN cuts by at most this fraction (tutorial's QCN table: 0.5)",
                                   0.5, 0.0, 1.0};
                             }};
  param<double> gi{nic_, [] {
                     return param_spec<double>{"ecm.gi", "ecm RP: increase gain, R <- R + gi*ru per positive BCN",
                                               5.0,      0.0,
                                               1e6,      param_change::live};
                   }};
  param<data_rate> ru{nic_, [] {
                        return param_spec<data_rate>{"ecm.ru", "ecm RP: rate unit of the increase", data_rate{10e6},
                                                     data_rate{0}, data_rate{1e12}};
                      }};
  param<data_rate> min_rate{nic_, [] {
                              return param_spec<data_rate>{"ecm.min_rate",
                                                           "ecm RP: lowest rate (as qcn.min_rate: 10 Mb/s)",
                                                           data_rate{10e6}, data_rate{1e3}, data_rate{1e13}};
                            }};
  const param<double>& w = ecm_settings::get().w;  // scheme-wide: ecm.w
  mutable stat_counter negative{
      nic_, "ecm", [] {
        return stat_desc{"negative_received", "frames", "negative BCN received by the NIC's ecm flows", nullptr};
      }};
  mutable stat_counter positive{
      nic_, "ecm", [] {
        return stat_desc{"positive_received", "frames", "positive BCN from the associated CPID (applied)", nullptr};
      }};
  mutable stat_counter ignored{nic_, "ecm", [] {
                                 return stat_desc{"positive_ignored", "frames",
                                                  "positive BCN ignored: not limited, or from a CPID not associated",
                                                  nullptr};
                               }};
};

class ecm_rp final : public reaction_point_if {
 public:
  ecm_rp(const ecm_maker& maker, const flow& f, rate_limiter_if& limiter)
      : maker_(maker), source_rate_(f.spec.rate.bps), limiter_(limiter) {}

  void on_feedback(const packet_header& h, uint64_t) override {
    cnm_pdu pdu;
    if (h.kind != frame_kind::cnm || !h.image || !decode_cnm(*h.image, pdu) || pdu.version != bcn::version) return;
    const double fb = bcn::feedback_bytes(pdu, maker_.w());
    const ecm_rp_state::result r = state_.on_bcn(fb, pdu.cpid, maker_.config(source_rate_));
    if (r == ecm_rp_state::result::ignored) {
      maker_.ignored += fb > 0;
      return;
    }
    ++(r == ecm_rp_state::result::cut ? maker_.negative : maker_.positive);
    tag_ = state_.limited() ? bcn::tag_of(state_.cpid()) : 0;
    limiter_.set_rate(data_rate{state_.limited() ? state_.rate() : 0.0});  // 0: released, no limit
  }
  void on_send(const packet_header&, uint64_t) override {}
  void tag(packet_header& h) override { h.cp_tag = tag_; }

 private:
  const ecm_maker& maker_;
  double source_rate_;
  rate_limiter_if& limiter_;
  ecm_rp_state state_;
  uint32_t tag_ = 0;
};

std::unique_ptr<reaction_point_if> ecm_maker::make(const flow& f, rate_limiter_if& limiter) {
  return std::make_unique<ecm_rp>(*this, f, limiter);
}

const policy_registrar<rp_policies> reg{
    "ecm", "ECM (BCN): AIMD on BCN (Fb from Qoff and Qdelta), CPID association and tagging (ecm.*)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<ecm_maker>(nic, mac); }};
}  // namespace
}  // namespace sluice
