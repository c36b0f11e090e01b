// Congestion point "ecm": ECM (BCN) at one egress queue (port, priority). It samples on enqueue
// (ecm_cp_state: fixed, jittered interval) and sends negative BCN (Fb < 0) to the sampled frame's
// source, and positive BCN (Fb > 0) only to a source whose frame carries this CP's CPID tag. BCN
// travels as an 802.1Qau CNM frame, version 1 (bcn_frame.h), through the switch's
// frame_injector_if, outside MMU accounting. Parameters <port>.prio<k>.ecm.*, statistics
// <port>.prio<k>.ecm.{samples,negative_sent,positive_sent}. See docs/models/ecm.md.
#include <algorithm>
#include <string>

#include "models/core/event_queue.h"
#include "models/core/stats.h"
#include "models/protocol/bcn_frame.h"
#include "models/protocol/ethernet.h"
#include "models/switch/policies/cnm_maker.h"
#include "models/switch/policies/ecm_cp_state.h"
#include "models/switch/policies/qcn_cp_state.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
// Defaults: as the qcn CP's (docs/models/ecm.md: the tutorial compares ECM and QCN on the same
// setup and gives no ECM table): Qeq 26 KiB, w 2, a sample per 150 KB arrived +/- 15 %.
const param_spec<byte_count> qeq_spec{"ecm.qeq", "ecm: equilibrium queue depth Qeq (as qcn: 26 KiB)",
                                      byte_count{26 * 1024}, byte_count{64}, byte_count{1ull << 30}};
const param_spec<double> w_spec{"ecm.w", "ecm: weight w of the queue growth in Fb = -(Qoff + w*Qdelta) (tutorial: 2)",
                                2.0, 0.0, 64.0};
const param_spec<byte_count> base_spec{"ecm.sample_base",
                                       "ecm: bytes arrived between samples, fixed (BCN: 1 % of 1500-B frames = 150 KB)",
                                       byte_count{150000}, byte_count{64}, byte_count{1ull << 32}};
const param_spec<double> jitter_spec{"ecm.sample_jitter",
                                     "ecm: each sampling interval is drawn uniformly from (1 +/- this) x sample_base",
                                     0.15, 0.0, 0.9};

class ecm_cp final : public congestion_point_if {
 public:
  ecm_cp(const sc_core::sc_object& port, int cls, frame_injector_if& injector)
      : qeq_(&port, qeq_spec, cls),
        w_(&port, w_spec, cls),
        base_(&port, base_spec, cls),
        jitter_(&port, jitter_spec, cls),
        cls_(cls),
        scope_("prio" + std::to_string(cls) + ".ecm"),
        injector_(injector),
        state_(random_streams::instance().seed_for(std::string(port.name()) + "." + scope_)) {
    static const stat_desc stats[] = {
        {"samples", "frames", "data frames sampled by the ecm congestion point",
         [](const void* m, int) { return static_cast<double>(stat_model<ecm_cp>(m).samples_); }},
        {"negative_sent", "frames", "negative BCN sent (samples with Fb < 0)",
         [](const void* m, int) { return static_cast<double>(stat_model<ecm_cp>(m).negative_); }},
        {"positive_sent", "frames", "positive BCN sent (Fb > 0, the frame tagged with this CPID)",
         [](const void* m, int) { return static_cast<double>(stat_model<ecm_cp>(m).positive_); }},
    };
    stat_registry::instance().add(&port, scope_.c_str(), stats, 3, this);
  }

  void on_enqueue(packet_header& h, const queue_view& q) override {
    const ecm_cp_config c{qeq_().bytes, w_(), base_().bytes, jitter_()};
    const uint64_t cpid = bcn::cpid(q.port_mac, q.cls);
    const ecm_sample s = state_.on_arrival(h.size, q.bytes, h.cp_tag, bcn::tag_of(cpid), c);
    samples_ += s.sampled;
    if (s.send == bcn_kind::none) return;
    (s.send == bcn_kind::negative ? negative_ : positive_) += 1;
    send_bcn(h, q, s, cpid, c);
  }
  void on_dequeue(packet_header&, const queue_view&) override {}
  void check(uint64_t buffer_bytes) const override { check_within_buffer(qeq_, cls_, buffer_bytes); }

 private:
  void send_bcn(const packet_header& data, const queue_view& q, const ecm_sample& s, uint64_t cpid,
                const ecm_cp_config& c) {
    cnm_pdu pdu;
    pdu.version = bcn::version;
    // Negative: |Fb| quantized as QCN does (Fbmax = (1 + 2w) Qeq), rounded up so that a QCN RP
    // would also react to every negative Fb.
    qcn_cp_config quantizer{c.qeq, c.w};
    quantizer.round_up = true;
    pdu.quantized_feedback = s.fb < 0 ? qcn_cp_state::quantize(s.fb, quantizer) : 0;
    injector_.inject(make_cnm(pdu, data, q.port_mac, cpid, s.q_offset, s.q_delta, injector_.node_id(), now_ps()));
  }

  param<byte_count> qeq_;
  param<double> w_;
  param<byte_count> base_;
  param<double> jitter_;
  int cls_;
  std::string scope_;  // "prio3.ecm": the statistics' scope, kept for the registry
  frame_injector_if& injector_;
  ecm_cp_state state_;
  uint64_t samples_ = 0, negative_ = 0, positive_ = 0;
};

const policy_registrar<cp_policies> reg{
    "ecm",
    "ECM (BCN): sample on enqueue, negative BCN (Qoff, Qdelta) to the source, positive only to CPID-tagged frames",
    [](const sc_core::sc_object& port, int cls, frame_injector_if& injector) {
      return std::make_unique<ecm_cp>(port, cls, injector);
    }};
}  // namespace
}  // namespace sluice
