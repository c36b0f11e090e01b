// Notification point "timely": the receiver's ACKs that TIMELY's sender times. They are the
// NIC's transport ACKs (models/cc/ack_model.h), which this NP switches on with one ACK per
// completed segment of <nic>.np.ack_segment payload bytes and one for the last frame of a finite
// flow (0: one per data frame): real 70 B RoCEv2 ACK frames on the data frame's class, queued
// through the NIC's control path ahead of data and subject to that class's pause. Each ACK's
// header `seq` is the acknowledged byte offset (the data frame's seq + payload), by which the
// sender's reaction point finds its own send time for that frame.
// <nic>.np.profile = hpcc-sim (the HPCC ns-3 simulator's receiver, to pair with the senders'
// timely.profile = hpcc-sim): one ACK per data frame, on the fabric's highest class.
#include "models/cc/timely/timely_np.h"

#include <string>

#include "models/cc/ack_model.h"
#include "models/cc/notification_point.h"
#include "models/cc/received_flow_counts.h"
#include "models/cc/timely/timely_profiles.h"
#include "models/core/params.h"

namespace sluice {
namespace {
class timely_np final : public notification_point_if {
 public:
  timely_np(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table&)
      : nic_(&nic), acks_(sender.acks()) {
    segment_.inert_when(
        [](const void* m, const param_base&) -> std::string {
          const timely_np& np = *static_cast<const timely_np*>(m);
          return np.profile_() == "hpcc-sim" ? np.profile_.name() + " is 'hpcc-sim' (an ACK per data frame)" : "";
        },
        this);
  }

  // The ACKs are the NIC's transport ACKs (ack_model.h): TIMELY switches them on, one per
  // segment on the data's class (paper) or one per frame on the highest class (hpcc-sim);
  // <nic>.ack.* set explicitly still win.
  void derive_defaults() override {
    if (!acks_) return;
    acks_->enable.set_default(true);
    const bool every_frame = timely_profile_named(profile_())->ack_every_frame;
    const uint64_t segment = every_frame ? 0 : segment_().bytes;
    acks_->every_frames.set_default(segment ? 0 : 1);
    acks_->every_bytes.set_default(byte_count{segment});
    if (every_frame) acks_->priority.set_default("high");
  }
  const choice_param* profile_param() const override { return &profile_; }
  void on_data(const packet_header&, uint64_t) override {}

 private:
  const sc_core::sc_object* nic_;  // first: the parameter below is declared under it
  param<byte_count> segment_{
      nic_, [] {
        return param_spec<byte_count>{
            "np.ack_segment",
            "timely: one ACK per this many payload bytes received per flow, and at a finite flow's end; 0: one per "
            "data frame (paper: 16 KB segments; ns3-rdma timely: 16 000 B)",
            byte_count{16000}, byte_count{0}, byte_count{1ull << 32}};
      }};
  choice_param profile_{nic_, [] {
                          return choice_spec{"np.profile",
                                             "timely: the receiver's ACKs as the paper has them (one per "
                                             "np.ack_segment, on the data's class) or as the HPCC ns-3 simulator "
                                             "(one per data frame, on the highest class); pair with the senders' "
                                             "timely.profile; explicit ack.* settings win",
                                             "paper",
                                             {"paper", "hpcc-sim"}};
                        }};
  ack_model* acks_;
};

const policy_registrar<np_policies> reg{
    "timely", "TIMELY: an ACK to the source per np.ack_segment bytes received per flow (the RTT samples)",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<timely_np>(nic, sender, flows);
    }};
}  // namespace
}  // namespace sluice
