// Notification point "ib-cca": the destination CA of IB CCA. Every data frame that arrives with
// FECN set is answered with a congestion notification packet (CNP, BTH opcode 0x80) carrying
// BECN, addressed to the frame's source and about its flow (QP), on the frame's VL, through the
// NIC's control path ahead of data. The model has no reliable-connection ACKs to piggy-back
// BECN on, so every BECN travels in a CNP. Counts FECN frames (<nic>.np.fecn_frames) and BECNs
// sent per flow (<nic>.np.flow<id>.becns).
// "ib-cca-tcd" (TCD on IB, docs/models/tcd.md): a FECN frame (TCD's CE) is answered as above; a
// frame with TCD's UE bit (and no FECN) gets a CNP with BECN and the UE bit too, at most one per
// flow per <nic>.np.ue_interval (a victim's every frame is UE). Counts <nic>.np.ue_frames.
#include "models/cc/dcqcn/dcqcn_np.h"
#include "models/cc/notification_point.h"
#include "models/cc/received_flow_counts.h"
#include "models/core/params.h"
#include "models/core/stats.h"
#include "models/protocol/ib_frame.h"

namespace sluice {
namespace {
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
const stat_desc ue_stat[] = {{"ue_frames", "frames", "data frames received with TCD's UE bit and no FECN (ib-cca-tcd)",
                              read_count, stat_kind::counter}};
const stat_desc flow_stat[] = {
    {"becns", "frames", "CNPs with BECN sent to this flow's source (ib-cca)", read_count, stat_kind::counter}};

class cca_np final : public notification_point_if {
 public:
  cca_np(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows, bool ternary)
      : nic_(&nic), sender_(sender), becns_(nic, sender.node_id(), flows, flow_stat[0]) {
    if (ternary) {
      // DCQCN's CNP interval: the most UE BECNs a flow's source hears is one per 50 us.
      ue_interval_ = std::make_unique<param<sc_core::sc_time>>(&nic, [] {
        return param_spec<sc_core::sc_time>{
            "np.ue_interval", "ib-cca-tcd: least time between two UE BECNs to one flow (DCQCN's CNP interval)",
            sc_core::sc_time(50, sc_core::SC_US), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
      });
      stat_registry::instance().add(&nic, "np", ue_stat, 1, &ue_);
    }
  }
  void on_data(const packet_header& h, uint64_t now) override {
    const bool ce = h.flags & frame_flags::fecn;
    const bool ue = !ce && ue_interval_ && (h.flags & frame_flags::tcd_ue);
    if (ue) ++ue_;
    if (!ce && !(ue && ue_pacer_.on_data(h.flow_id, true, now, to_ps((*ue_interval_)())))) return;
    fecn_ += ce;
    becns_.add(h.flow_id);
    tlm::tlm_generic_payload* p = make_feedback_frame(frame_kind::cnp, h, sender_.node_id(), now);
    packet_header& c = header(*p);
    c.size = ib::cnp_bytes;
    c.flags = static_cast<uint8_t>(frame_flags::becn | (ue ? frame_flags::tcd_ue : 0));
    c.sl = h.sl;
    ib::route_headers r;
    r.vl = h.priority;
    r.sl = h.sl;
    r.slid = ib::lid_of(c.src);
    r.dlid = ib::lid_of(c.dst);
    r.packet_words = static_cast<uint16_t>((ib::cnp_bytes - ib::vcrc) / 4);
    r.opcode = ib::opcode_cnp;
    r.becn = true;
    r.ue = ue;
    r.dest_qp = h.flow_id;  // the model's QP number is the flow id
    ib::encode(r, c.image->data());
    sender_.send_control(p);
  }

 private:
  const sc_core::sc_object* nic_;  // first: the counter below is registered under it
  control_sender_if& sender_;
  stat_counter fecn_{
      nic_, "np", [] {
        return stat_desc{"fecn_frames", "frames", "data frames received with FECN set (ib-cca)", nullptr};
      }};
  uint64_t ue_ = 0;  // ib-cca-tcd only (registered then)
  received_flow_counts becns_;
  std::unique_ptr<param<sc_core::sc_time>> ue_interval_;  // ib-cca-tcd only
  cnp_pacer ue_pacer_;
};

const policy_registrar<np_policies> reg{
    "ib-cca", "IB CCA destination: a CNP with BECN to the source of every FECN-marked data frame",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<cca_np>(nic, sender, flows, false);
    }};
const policy_registrar<np_policies> reg_tcd{
    "ib-cca-tcd",
    "IB CCA destination with TCD: a BECN CNP per FECN (CE) frame, one per np.ue_interval for UE frames (UE bit kept)",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<cca_np>(nic, sender, flows, true);
    }};
}  // namespace
}  // namespace sluice
