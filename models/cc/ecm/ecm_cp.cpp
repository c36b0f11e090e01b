// Congestion point "ecm": ECM (BCN) at one egress queue (port, priority). It samples on enqueue
// (ecm_cp_state: fixed, jittered interval) and sends negative BCN (Fb < 0) to the sampled frame's
// source, and positive BCN (Fb > 0) only to a source whose frame carries this CP's CPID tag. BCN
// travels as an 802.1Qau CNM frame, version 1 (bcn_frame.h), through the switch's
// frame_injector_if, outside MMU accounting. Parameters <port>.prio<k>.ecm.*, statistics
// <port>.prio<k>.ecm.{samples,negative_sent,positive_sent}, probe point
// <port>.prio<k>.ecm.sample (Fb at each sample). See docs/models/ecm.md.
#include <algorithm>
#include <string>

#include "models/cc/congestion_point.h"
#include "models/cc/ecm/ecm_cp_state.h"
#include "models/cc/ecm/ecm_settings.h"
#include "models/cc/qcn/cnm_maker.h"
#include "models/cc/qcn/qcn_cp_state.h"
#include "models/core/event_queue.h"
#include "models/core/param_cache.h"
#include "models/core/stats.h"
#include "models/protocol/bcn_frame.h"
#include "models/protocol/ethernet.h"

namespace sluice {
namespace {
class ecm_cp final : public congestion_point_if {
 public:
  ecm_cp(const sc_core::sc_object& port, int cls, frame_injector_if& injector)
      : port_(&port),
        cls_(cls),
        scope_("prio" + std::to_string(cls) + ".ecm"),
        injector_(injector),
        state_(random_streams::instance().seed_for(std::string(port.name()) + "." + scope_)) {
    probe_registry::instance().declare(probes::cp_sample, this, &port, scope_.c_str());
  }

  void on_enqueue(packet_header& h, const queue_view& q) override {
    const ecm_cp_config& c = config_.get([this] {
      return ecm_cp_config{qeq_().bytes, w_(), base_().bytes, jitter_()};
    });
    const uint64_t cpid = bcn::cpid(q.port_mac, q.cls);
    const ecm_sample s = state_.on_arrival(h.size, q.bytes, h.cp_tag, bcn::tag_of(cpid), c);
    samples_ += s.sampled;
    if (s.sampled && probes::cp_sample.on())
      probes::cp_sample.emit(this, now_ps(), &h.fields(), -1, cls_, static_cast<uint64_t>(s.fb));
    if (s.send == bcn_kind::none) return;
    ++(s.send == bcn_kind::negative ? negative_ : positive_);
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

  const sc_core::sc_object* port_;  // first: what follows is declared under it, at class cls_
  int cls_;
  std::string scope_;  // "prio3.ecm": the statistics' scope, kept for the registry
  frame_injector_if& injector_;
  ecm_cp_state state_;
  param_cache<ecm_cp_config> config_;  // packed at the first frame of the run (no live parameter)
  // Defaults: as the qcn CP's (docs/models/ecm.md: the tutorial compares ECM and QCN on the same
  // setup and gives no ECM table): Qeq 26 KiB, w 2, a sample per 150 KB arrived +/- 15 %.
  param<byte_count> qeq_{port_,
                         [] {
                           return param_spec<byte_count>{"ecm.qeq", "ecm: equilibrium queue depth Qeq (as qcn: 26 KiB)",
                                                         byte_count{26 * 1024}, byte_count{64}, byte_count{1ull << 30}};
                         },
                         cls_};
  const param<double>& w_ = ecm_settings::get().w;  // scheme-wide: ecm.w
  param<byte_count> base_{port_,
                          [] {
                            return param_spec<byte_count>{
                                "ecm.sample_base",
                                "ecm: bytes arrived between samples, fixed (BCN: 1 % of 1500-B frames = 150 KB)",
                                byte_count{150000}, byte_count{64}, byte_count{1ull << 32}};
                          },
                          cls_};
  param<double> jitter_{port_,
                        [] {
                          return param_spec<double>{
                              "ecm.sample_jitter",
                              "ecm: each sampling interval is drawn uniformly from (1 +/- this) x sample_base", 0.15,
                              0.0, 0.9};
                        },
                        cls_};
  stat_counter samples_{
      port_, scope_.c_str(), [] {
        return stat_desc{"samples", "frames", "data frames sampled by the ecm congestion point", nullptr};
      }};
  stat_counter negative_{
      port_, scope_.c_str(), [] {
        return stat_desc{"negative_sent", "frames", "negative BCN sent (samples with Fb < 0)", nullptr};
      }};
  stat_counter positive_{port_, scope_.c_str(), [] {
                           return stat_desc{"positive_sent", "frames",
                                            "positive BCN sent (Fb > 0, the frame tagged with this CPID)", nullptr};
                         }};
};

const policy_registrar<cp_policies> reg{
    "ecm",
    "ECM (BCN): sample on enqueue, negative BCN (Qoff, Qdelta) to the source, positive only to CPID-tagged frames",
    [](const sc_core::sc_object& port, int cls, frame_injector_if& injector) {
      return std::make_unique<ecm_cp>(port, cls, injector);
    }};
}  // namespace
}  // namespace sluice
