// Notification point "dcqcn": answers a CE-marked data frame with a RoCEv2 CNP to the flow's
// source, at most one per flow per <nic>.np.cnp_interval (cnp_pacer, dcqcn_np.h). The CNP is a
// real frame: 82 B (roce::cnp_bytes) with its wire image, on the data frame's class, queued
// through the NIC's control path (control_sender_if::send_control) ahead of data and subject
// to that class's pause; it crosses the fabric like any frame. Counts CE-marked frames
// (<nic>.np.ce_frames) and the CNPs it made per flow (<nic>.np.flow<id>.cnps).
//
// Notification point "dcqcn-tcd": the same for TCD's ternary code points (docs/models/tcd.md):
// a CE frame gets a CNP as above, a UE (10) frame one too when no CNP of either kind went to
// its flow in the interval; the CNP's IPv4 ECN bits carry the code point that caused it, for
// the reaction point to tell them apart. Counts UE frames in <nic>.np.ue_frames.
#include "models/cc/dcqcn/dcqcn_np.h"

#include <string>
#include <vector>

#include "models/cc/ack_model.h"
#include "models/cc/dcqcn/dcqcn_profiles.h"
#include "models/cc/dcqcn/roce_cnp.h"
#include "models/cc/notification_point.h"
#include "models/cc/received_flow_counts.h"
#include "models/core/params.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
double read_count(const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }
const stat_desc ue_stat[] = {
    {"ue_frames", "frames", "UE-marked (TCD 10) data frames received (dcqcn-tcd)", read_count, stat_kind::counter}};
constexpr uint8_t ecn_ue = 2, ecn_ce = 3;
const stat_desc flow_stat[] = {{"cnps", "frames", "CNPs made for this flow (dcqcn)", read_count, stat_kind::counter}};

class dcqcn_np final : public notification_point_if {
 public:
  dcqcn_np(const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows, bool ternary)
      : nic_(&nic),
        sender_(sender),
        pacer_(flows.size()),
        any_(flows.size()),
        ternary_(ternary),
        cnps_(nic, sender.node_id(), flows, flow_stat[0]) {
    if (ternary_) stat_registry::instance().add(&nic, "np", ue_stat, 1, &ue_);
  }
  void derive_defaults() override {
    const dcqcn_profile& p = *dcqcn_profile_named(profile_());
    interval_.set_default(sc_core::sc_time(static_cast<double>(p.cnp_interval_ps), sc_core::SC_PS));
    if (ack_model* acks = sender_.acks(); acks && p.transport_acks) {
      acks->enable.set_default(true);
      acks->every_frames.set_default(1);
      acks->priority.set_default("high");
    }
  }
  const choice_param* profile_param() const override { return &profile_; }
  void on_data(const packet_header& h, uint64_t now) override {
    const bool ce = h.ecn == ecn_ce;
    ce_ += ce;
    const uint64_t interval = to_ps(interval_());
    if (pacer_.on_data(h.flow_id, ce, now, interval)) {
      if (ternary_) any_.on_data(h.flow_id, true, now, 0);  // a CE CNP also holds back UE ones
      send(h, now, ternary_ ? ecn_ce : 0);
    } else if (ternary_ && h.ecn == ecn_ue) {
      ++ue_;
      if (any_.on_data(h.flow_id, true, now, interval)) send(h, now, ecn_ue);
    }
  }

 private:
  void send(const packet_header& h, uint64_t now, uint8_t code) {
    cnps_.add(h.flow_id);
    sender_.send_control(make_roce_cnp(h, sender_.node_id(), now, code));
  }

  const sc_core::sc_object* nic_;  // first: the parameters below are declared under it
  param<sc_core::sc_time> interval_{
      nic_, [] {
        return param_spec<sc_core::sc_time>{
            "np.cnp_interval", "dcqcn: at most one CNP per flow per this interval, the first at once (paper: 50 us)",
            sc_core::sc_time(50, sc_core::SC_US), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
      }};
  choice_param profile_{nic_, [] {
                          return choice_spec{
                              "np.profile",
                              "dcqcn: the CNP interval and transport ACKs of the paper (50 us), ConnectX "
                              "(min_time_between_cnps 4 us) or the HPCC ns-3 simulator (0: the CE echo of a per-frame "
                              "ACK; ACKs on every frame, on the highest class) (docs/models/dcqcn.md); explicit "
                              "settings win",
                              "paper",
                              {"paper", "connectx", "hpcc-sim"}};
                        }};
  control_sender_if& sender_;
  cnp_pacer pacer_, any_;  // CE CNPs; CNPs of either kind (dcqcn-tcd)
  bool ternary_;
  stat_counter ce_{nic_, "np", [] {
                     return stat_desc{"ce_frames", "frames", "CE-marked data frames received (dcqcn)", nullptr};
                   }};
  uint64_t ue_ = 0;  // dcqcn-tcd only (registered then)
  received_flow_counts cnps_;
};

const policy_registrar<np_policies> reg{
    "dcqcn", "DCQCN: a CNP to the source of a CE-marked flow, at most one per flow per np.cnp_interval",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<dcqcn_np>(nic, sender, flows, false);
    }};
const policy_registrar<np_policies> reg_tcd{
    "dcqcn-tcd", "DCQCN with TCD: CNPs for CE and UE frames, the code point in the CNP's ECN bits (np.cnp_interval)",
    [](const sc_core::sc_object& nic, control_sender_if& sender, const flow_table& flows) {
      return std::make_unique<dcqcn_np>(nic, sender, flows, true);
    }};
}  // namespace
}  // namespace sluice
