// The NIC's policy registries (see models/core/policy_registry.h and docs/architecture.md,
// "Policies by name"):
//
//   registry      interface               parameter (default)   made
//   np_policies   notification_point_if   <nic>.np (none)       one per NIC
//   rp_policies   reaction_point_maker    <nic>.rp (none)       one per NIC, then one
//                                                               reaction_point_if per flow sent
//
// Both are made before the second pass of the parameter overrides, so they may declare
// parameters of their own under the NIC (owner): "h0.np.<leaf>", "h0.rp.<leaf>". A reaction
// point's parameters belong to its maker, made once per NIC, which declares them once; each
// flow's reaction point (made by the maker) reads them from it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/core/policy_registry.h"
#include "models/core/stats.h"
#include "models/link/mac_port.h"
#include "models/nic/cc_slots.h"
#include "models/nic/flow.h"
#include "models/nic/rate_limiter.h"

namespace sluice {

// owner: the NIC; sender: where it hands frames it makes (CNPs, ACKs); flows: every flow of the
// fabric, by id.
using np_policies =
    policy_registry<notification_point_if, const sc_core::sc_object&, control_sender_if&, const flow_table&>;
// The reaction points of one NIC: made once per NIC by the policy the NIC's `rp` names (its
// parameters, if any, declared once in its constructor under the NIC), then asked once per flow
// the NIC sends for that flow's reaction point, which reads the maker's parameters.
class reaction_point_maker {
 public:
  virtual ~reaction_point_maker() = default;
  // The flow's reaction point (null: none for this flow), driving `limiter` (the knob).
  virtual std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) = 0;
  // Defaults derived from other parameters (a profile's), once the overrides are final and
  // before check(); a parameter the user set keeps its value.
  virtual void derive_defaults() {}
  // Cross-parameter checks, once the overrides are final (throws config_error, one line).
  virtual void check() const {}
};

// owner: the NIC (parameters are named under it); mac: the NIC's port, for the line rate
// (mac.wire().current_rate(), read at run time).
using rp_policies = policy_registry<reaction_point_maker, const sc_core::sc_object&, const mac_port&>;

// A RoCEv2 CNP (82 B, real wire image) about the data frame `data`, from node `from` back to the
// frame's source, on its class; destination QP = the flow id. The IPv4 ECN bits carry `ecn` and
// the first reserved word `rate_mbps` (both 0 for DCQCN; PCN's congestion flag and RecRate).
tlm::tlm_generic_payload* make_roce_cnp(const packet_header& data, uint32_t from, uint64_t now_ps, uint8_t ecn = 0,
                                        uint32_t rate_mbps = 0);

// A counter per flow a NIC receives, for notification points: registered as the statistic
// <nic>.np.flow<id>.<leaf of `desc`> for each flow whose destination is `node_id`.
class received_flow_counts {
 public:
  received_flow_counts(const sc_core::sc_object& nic, uint32_t node_id, const flow_table& flows,
                       const stat_desc& desc);
  void add(uint32_t flow_id) {
    if (flow_id < counts_.size()) ++counts_[flow_id];
  }

 private:
  std::vector<uint64_t> counts_;  // by flow id; sized once, so the registered addresses stay valid
  std::vector<std::unique_ptr<std::string>> scopes_;  // "np.flow3", kept for the registry
};

}  // namespace sluice
