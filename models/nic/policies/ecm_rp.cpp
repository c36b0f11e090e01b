// Reaction point "ecm": ECM's AIMD rate limiter with CPID association (ecm_rp_state) for each flow
// the NIC sends. A BCN (a version-1 CNM, bcn_frame.h) gives Fb = -(Qoff + w Qdelta) from its two
// fields; negative feedback cuts and associates the limiter with the BCN's CPID, positive
// feedback from that CPID raises the rate, from any other is ignored. While limited, the flow's
// data frames are tagged with the CPID (reaction_point_if::tag). Parameters <nic>.ecm.<leaf>,
// declared once per NIC by the maker and read at every BCN. See docs/models/ecm.md.
#include "models/core/params.h"
#include "models/core/stats.h"
#include "models/nic/nic_policies.h"
#include "models/nic/policies/ecm_rp_state.h"
#include "models/protocol/bcn_frame.h"

namespace sluice {
namespace {
const param_spec<double> gd_spec{
    "ecm.gd",
    "ecm RP: decrease gain per byte of -Fb, R <- R*(1 + gd*Fb) (1/266240: half the rate at Fb = -(1+2w)*Qeq with "
    "the default Qeq)",
    1.0 / 266240, 0.0, 1.0};
const param_spec<double> max_decrease_spec{
    "ecm.max_decrease", "ecm RP: one negative BCN cuts by at most this fraction (tutorial's QCN table: 0.5)", 0.5, 0.0,
    1.0};
const param_spec<double> gi_spec{"ecm.gi", "ecm RP: increase gain, R <- R + gi*ru per positive BCN", 5.0, 0.0, 1e6};
const param_spec<data_rate> ru_spec{"ecm.ru", "ecm RP: rate unit of the increase", data_rate{10e6}, data_rate{0},
                                    data_rate{1e12}};
const param_spec<data_rate> min_rate_spec{"ecm.min_rate", "ecm RP: lowest rate (as qcn.min_rate: 10 Mb/s)",
                                          data_rate{10e6}, data_rate{1e3}, data_rate{1e13}};
const param_spec<double> w_spec{"ecm.w", "ecm RP: weight of Qdelta in the Fb it computes from a BCN (tutorial: 2)", 2.0,
                                0.0, 64.0};

struct ecm_counts {
  uint64_t negative = 0, positive = 0, ignored = 0;
};
const stat_desc stats[] = {
    {"negative_received", "frames", "negative BCN received by the NIC's ecm flows",
     [](const void* m, int) { return static_cast<double>(static_cast<const ecm_counts*>(m)->negative); }},
    {"positive_received", "frames", "positive BCN from the associated CPID (applied)",
     [](const void* m, int) { return static_cast<double>(static_cast<const ecm_counts*>(m)->positive); }},
    {"positive_ignored", "frames", "positive BCN ignored: not limited, or from a CPID not associated",
     [](const void* m, int) { return static_cast<double>(static_cast<const ecm_counts*>(m)->ignored); }},
};

class ecm_maker final : public reaction_point_maker {
 public:
  ecm_maker(const sc_core::sc_object& nic, const mac_port& mac)
      : gd(&nic, gd_spec),
        max_decrease(&nic, max_decrease_spec),
        gi(&nic, gi_spec),
        ru(&nic, ru_spec),
        min_rate(&nic, min_rate_spec),
        w(&nic, w_spec),
        mac_(mac) {
    stat_registry::instance().add(&nic, "ecm", stats, 3, &counts);
  }
  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override;
  ecm_rp_config config(double source_rate) const {
    double line = mac_.has_wire() ? mac_.wire().current_rate().bps : 0;
    if (source_rate > 0 && (line <= 0 || source_rate < line)) line = source_rate;
    return {gd(), max_decrease(), gi(), ru().bps, min_rate().bps, line};
  }

  param<double> gd, max_decrease, gi;
  param<data_rate> ru, min_rate;
  param<double> w;
  mutable ecm_counts counts;

 private:
  const mac_port& mac_;
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
    ecm_counts& n = maker_.counts;
    if (r == ecm_rp_state::result::ignored) {
      n.ignored += fb > 0;
      return;
    }
    (r == ecm_rp_state::result::cut ? n.negative : n.positive) += 1;
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
