// Notification point "dcqcn": answers a CE-marked data frame with a RoCEv2 CNP to the flow's
// source, at most one per flow per <nic>.np.cnp_interval (cnp_pacer, dcqcn_np.h). The CNP is a
// real frame: 82 B (roce::cnp_bytes) with its wire image, on the data frame's class, queued
// through the NIC's control path (control_sender_if::send_control) ahead of data and subject
// to that class's pause; it crosses the fabric like any frame. Counts CE-marked frames
// (<nic>.np.ce_frames) and the CNPs it made per flow (<nic>.np.flow<id>.cnps).
#include <string>
#include <vector>

#include "models/core/params.h"
#include "models/core/stats.h"
#include "models/nic/nic_policies.h"
#include "models/nic/policies/dcqcn_np.h"
#include "models/protocol/roce_frame.h"

namespace sluice {
namespace {
const param_spec<sc_core::sc_time> interval_spec{
    "np.cnp_interval", "dcqcn: at most one CNP per flow per this interval, the first at once (paper: 50 us)",
    sc_core::sc_time(50, sc_core::SC_US), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
const stat_desc total_stat[] = {{"ce_frames", "frames", "CE-marked data frames received (dcqcn)", read_count}};
const stat_desc flow_stat[] = {{"cnps", "frames", "CNPs made for this flow (dcqcn)", read_count}};

class dcqcn_np final : public notification_point_if {
 public:
  dcqcn_np(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows)
      : interval_(&nic, interval_spec),
        sender_(sender),
        pacer_(flows.size()),
        cnps_(nic, sender.node_id(), flows, flow_stat[0]) {
    stat_registry::instance().add(&nic, "np", total_stat, 1, &ce_);
  }
  void on_data(const packet_header& h, uint64_t now) override {
    const bool ce = h.ecn == 3;
    ce_ += ce;
    if (!pacer_.on_data(h.flow_id, ce, now, to_ps(interval_()))) return;
    cnps_.add(h.flow_id);
    sender_.send_control(make_cnp(h, now));
  }

 private:
  tlm::tlm_generic_payload* make_cnp(const packet_header& data, uint64_t now) const {
    tlm::tlm_generic_payload* p = make_feedback_frame(frame_kind::cnp, data, sender_.node_id(), now);
    packet_header& h = header(*p);
    h.size = roce::cnp_bytes;
    roce::encode(roce::reply_to(data, h.src, roce::opcode_cnp), h.image->data());
    return p;
  }

  param<sc_core::sc_time> interval_;
  control_sender_if& sender_;
  cnp_pacer pacer_;
  uint64_t ce_ = 0;
  received_flow_counts cnps_;
};

const policy_registrar<np_policies> reg{
    "dcqcn", "DCQCN: a CNP to the source of a CE-marked flow, at most one per flow per np.cnp_interval",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<dcqcn_np>(nic, sender, flows);
    }};
}  // namespace
}  // namespace sluice
