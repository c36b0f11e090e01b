// Notification point "timely": the receiver's ACKs that TIMELY's sender times. One ACK per
// completed segment of <nic>.np.ack_segment payload bytes (completes_segment, timely_np.h), and
// for the last frame of a finite flow. The ACK is a real frame: 70 B (roce::ack_bytes: RoCEv2
// with opcode ACKNOWLEDGE and an AETH), its wire image written by roce::encode, on the data
// frame's class, queued through the NIC's control path (control_sender_if::send_control)
// ahead of data and subject to that class's pause. Its header's `seq` is the acknowledged
// byte offset (the data frame's seq + payload; in the image, its low 24 bits as the PSN), by
// which the sender's reaction point finds its own send time for that frame.
#include "models/nic/policies/timely_np.h"

#include "models/core/params.h"
#include "models/nic/nic_policies.h"
#include "models/protocol/roce_frame.h"

namespace sluice {
namespace {
const param_spec<byte_count> segment_spec{
    "np.ack_segment",
    "timely: one ACK per this many payload bytes received per flow, and at a finite flow's end; 0: one per data "
    "frame (paper: 16 KB segments; ns3-rdma timely: 16 000 B)",
    byte_count{16000}, byte_count{0}, byte_count{1ull << 32}};
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
const stat_desc flow_stat[] = {{"acks", "frames", "ACKs made for this flow (timely)", read_count}};

class timely_np final : public notification_point_if {
 public:
  timely_np(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows)
      : segment_(&nic, segment_spec),
        sender_(sender),
        flows_(flows),
        acks_(nic, sender.node_id(), flows, flow_stat[0]) {}

  void on_data(const packet_header& h, uint64_t now) override {
    const uint64_t size =
        h.flow_id < flows_.size() && flows_[h.flow_id].spec.kind == flow_kind::finite ? flows_[h.flow_id].spec.size : 0;
    if (!completes_segment(h.seq, h.payload, segment_().bytes, size)) return;
    acks_.add(h.flow_id);
    sender_.send_control(make_ack(h, now));
  }

 private:
  tlm::tlm_generic_payload* make_ack(const packet_header& data, uint64_t now) const {
    tlm::tlm_generic_payload* p = make_feedback_frame(frame_kind::ack, data, sender_.node_id(), now);
    packet_header& h = header(*p);
    h.size = roce::ack_bytes;
    h.seq = data.seq + data.payload;  // the acknowledged offset
    roce::headers w = roce::reply_to(data, h.src, roce::opcode_acknowledge);
    w.psn = static_cast<uint32_t>(h.seq & 0xFFFFFF);
    roce::encode(w, h.image->data());
    return p;
  }

  param<byte_count> segment_;
  control_sender_if& sender_;
  const flow_table& flows_;
  received_flow_counts acks_;
};

const policy_registrar<np_policies> reg{
    "timely", "TIMELY: an ACK to the source per np.ack_segment bytes received per flow (the RTT samples)",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<timely_np>(nic, sender, flows);
    }};
}  // namespace
}  // namespace sluice
