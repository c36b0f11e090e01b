// A NIC: one MAC port with its flow-control component (it honours PFC from its switch), a
// transmit scheduler over its flows' rate limiters, a receive dispatcher, and the
// congestion-control slots: one notification point (receiver side) and a reaction point per
// flow it sends (sender side).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "models/cc/ack_model.h"
#include "models/cc/control_sender.h"
#include "models/cc/firmware/firmware_rp.h"
#include "models/cc/flow.h"
#include "models/cc/notification_point.h"
#include "models/cc/rate_limiter.h"
#include "models/cc/reaction_point.h"
#include "models/core/line_arena.h"
#include "models/core/params.h"
#include "models/link/credit_flow_control.h"
#include "models/link/mac_port.h"
#include "models/link/pfc.h"
#include "models/nic/delayed_rate_limiter.h"
#include "models/nic/nic_registers.h"
#include "models/nic/rx_dispatcher.h"
#include "models/nic/source_routing.h"
#include "models/nic/tx_scheduler.h"
#include "models/regs/register_target.h"

namespace sluice {

// The NIC's link attachment, "h0.port0": its MAC and the PFC that pauses it, or on InfiniBand
// the credits that gate it (the PFC is then present but unattached).
class nic_port : public sc_core::sc_module {
 public:
  mac_port mac;
  pfc flow_control;
  std::unique_ptr<credit_flow_control> credits;
  nic_port(sc_core::sc_module_name name, uint64_t mac_address, int classes, link_layer layer)
      : sc_module(name),
        mac("mac", 0, mac_address),
        flow_control("pfc", mac, std::min(classes, pfc_priorities), nullptr),
        credits(layer == link_layer::ib ? std::make_unique<credit_flow_control>("credit", mac, classes) : nullptr) {
    mac.attach_flow_control(&gate());
  }
  flow_control_if& gate() { return credits ? static_cast<flow_control_if&>(*credits) : flow_control; }
};

// In the line arena (line_arena.h): its line-aligned MAC and schedulers without a malloc block's padding.
class nic : public sc_core::sc_module, public control_sender_if, public in_line_arena {
 public:
  param<byte_count> mtu;
  param<byte_count> header_bytes;
  param<byte_count> min_frame;
  param<sc_core::sc_time> rate_update_latency;  // > 0: each flow's limiter takes updates this late
  choice_param np;                              // notification point policy, by name
  choice_param rp;                              // reaction point policy of every flow this NIC sends, by name
  firmware_params firmware;                     // firmware reacting in place of `rp` (docs/cosimulation.md)
  source_routing_params routing;                // R3C2: this NIC chooses its frames' paths (docs/adaptive-routing.md)
  nic_port port;
  regs::register_target registers;  // "h0.regs": the register bank's TLM target (docs/cosimulation.md)

  nic(sc_core::sc_module_name name, uint32_t node_id, flow_table& flows, int classes,
      link_layer layer = link_layer::cee);

  void add_flow(uint32_t flow_id);  // a flow this NIC sends
  // Called when a finite flow's last byte arrives here (e.g. to stop the run when all are done).
  void on_flow_complete(std::function<void(uint32_t flow_id)> hook) { rx_.on_flow_complete(std::move(hook)); }
  // The same moment as an sc_event, for a foreign SystemC process (firmware, a test bench): it
  // fires at the model time of the flow's last bit (to the picosecond, also inside a drain);
  // last_completed_flow() is then the flow's id. Ask for it during elaboration.
  const sc_core::sc_event& flow_completed_event() { return rx_.completion_signal().event(); }
  uint32_t last_completed_flow() const { return rx_.last_completed(); }
  // The flow's rate limiter, for congestion control to drive; valid for the whole run.
  rate_limiter_if& limiter(uint32_t flow_id) {
    // The scheduler's (the one bound or the flow's own), inline: a sampler asks for every flow's
    // rate at every sample.
    if (rate_limiter_if* l = tx_.limiter_of(flow_id)) return *l;
    not_sent(flow_id);
  }
  const rate_limiter_if& limiter(uint32_t flow_id) const { return const_cast<nic*>(this)->limiter(flow_id); }
  // Replaces the flow's default pacing limiter (e.g. with an RTL or firmware model); before
  // the flow starts sending.
  void bind_limiter(uint32_t flow_id, rate_limiter_if& replacement);
  // Makes the NP and RPs chosen by `np` and `rp` (they may declare parameters of their own);
  // once, after the first pass of the overrides. "none" keeps whatever was set below.
  void make_policies();
  // Congestion-control slots (not owned; nullptr: none).
  void set_notification_point(notification_point_if* np) { rx_.set_notification_point(np); }
  void set_reaction_point(uint32_t flow_id, reaction_point_if* rp);
  // The flow's reaction point (null: none), e.g. for its target rate.
  const reaction_point_if* reaction_point(uint32_t flow_id) const;
  // The chosen policies' derived defaults (profiles), once the overrides are final.
  void derive_policy_defaults();
  // Cross-parameter checks of the chosen policies, once the overrides are final.
  void check_policies() const;
  // The profile parameters of the chosen NP and RP policies (null: none), which a flow's two
  // ends should set alike (docs/models/dcqcn.md, timely.md).
  const choice_param* np_profile() const { return np_policy_ ? np_policy_->profile_param() : nullptr; }
  const choice_param* rp_profile() const { return rp_maker_ ? rp_maker_->profile_param() : nullptr; }
  // A message to this NIC's firmware (its mailbox handler), answered now (config_error: none).
  std::string firmware_mailbox(const std::string& message);
  // control_sender_if: a frame this NIC made (CNP, ACK), queued ahead of data on its class.
  void send_control(tlm::tlm_generic_payload* frame) override;
  uint32_t node_id() const override { return node_id_; }
  ack_model* acks() override { return &acks_; }

  const std::vector<uint32_t>& flows_sent() const { return flow_ids_; }
  const flow& flow_of(uint32_t flow_id) const { return flows_[flow_id]; }
  uint64_t frames_received() const { return rx_.frames_received(); }
  uint64_t misdelivered() const { return rx_.misdelivered(); }
  uint64_t frames_sent(int cls) const { return tx_.sent(cls).frames; }
  uint64_t bytes_sent(int cls) const { return tx_.sent(cls).bytes; }  // on the wire
  const rx_dispatcher& receiver() const { return rx_; }
  // Deliver each flow's data in byte order, holding frames that arrive ahead of a gap (set where
  // the fabric may reorder: adaptive routing). Off, frames are delivered as they arrive.
  void set_resequencing(bool on) { rx_.set_resequencing(on); }
  const tx_scheduler& transmitter() const { return tx_; }
  // The fabric's paths (R3C2), before make_policies; not owned.
  void set_path_plan(const path_plan* plan) { path_plan_ = plan; }
  // The flow's paths under routing = r3c2 (null: the switches route it).
  const multipath_flow* paths_of(uint32_t flow_id) const;
  uint64_t path_activations() const;  // over the flows it sends
  uint64_t path_notifications() const;

 private:
  friend struct invariant_test_hooks;
  void limit_changed(uint32_t flow_id);  // a flow's limiter changed: reorder it, publish rate_change
  void start_of_simulation() override;
  bool sends(uint32_t flow_id) const;
  [[noreturn, gnu::cold]] void not_sent(uint32_t flow_id) const;  // config_error naming the flow
  void make_multipath_flows(reaction_point_maker* maker);

  nic_registers register_device_;  // what `registers` reads besides parameters and statistics
  uint32_t node_id_;
  flow_table& flows_;
  tx_scheduler tx_;
  rx_dispatcher rx_;
  ack_model acks_;  // the transport's ACKs (off unless enabled)
  std::vector<uint32_t> flow_ids_;
  std::map<uint32_t, pacing_limiter> limiters_;  // by flow id; node-based, so references stay valid
  std::map<uint32_t, rate_limiter_if*> bound_limiters_;
  std::vector<std::unique_ptr<delayed_rate_limiter>> delayed_limiters_;  // rate_update_latency > 0
  std::unique_ptr<notification_point_if> np_policy_;
  std::unique_ptr<reaction_point_maker> rp_maker_;        // the `rp` policy: its parameters, once per NIC
  std::unique_ptr<reaction_point_maker> firmware_maker_;  // `firmware`: reacts in place of rp_maker_
  std::vector<std::unique_ptr<reaction_point_if>> rp_policies_;
  std::map<uint32_t, const reaction_point_if*> reaction_points_;  // by flow id, as set
  const path_plan* path_plan_ = nullptr;
  std::map<uint32_t, std::unique_ptr<multipath_flow>> multipath_;  // by flow id, under routing = r3c2
  bool policies_made_ = false;
};

}  // namespace sluice
