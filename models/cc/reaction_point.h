// A reaction point (RP) sits at the sender, one per flow: it sees the feedback frames addressed
// to its flow and every frame the flow sends, and drives the flow's rate limiter. Algorithms
// (QCN, DCQCN, TIMELY, PCN, IB CCA) implement these.
//
//   registry      interface               parameter (default)   made
//   rp_policies   reaction_point_maker    <nic>.rp (none)       one per NIC, then one
//                                                               reaction_point_if per flow sent
//
// A reaction point's parameters belong to its maker, made once per NIC before the second pass of
// the parameter overrides, which declares them once under the NIC ("h0.rp.<leaf>"); each flow's
// reaction point (made by the maker) reads them from it.
#pragma once
#include <cstdint>
#include <memory>

#include "models/cc/flow.h"
#include "models/cc/rate_limiter.h"
#include "models/core/packet.h"
#include "models/core/policy_registry.h"
#include "models/core/units.h"
#include "models/link/mac_port.h"

namespace sluice {

class choice_param;

class reaction_point_if {
 public:
  virtual ~reaction_point_if() = default;
  // A feedback frame (CNM, CNP, ACK) about this flow arrived.
  virtual void on_feedback(const packet_header& h, uint64_t now_ps) = 0;
  // The flow started a frame of `bytes` wire bytes (byte counters, RTT stamps).
  virtual void on_send(const packet_header& h, uint64_t now_ps) = 0;
  // Just before on_send: the reaction point may mark the data frame (ECM's CPID tag, a probe bit).
  virtual void tag(packet_header&) {}
  // The rate this reaction point is heading for (QCN's and DCQCN's target rate), for the
  // flow_rate.csv series; 0: the algorithm has none.
  virtual data_rate target_rate() const { return data_rate{0}; }
};

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
  // The parameter naming whose rules and values these reaction points follow (DCQCN's
  // rp.profile, TIMELY's timely.profile), to be matched by the receivers' np.profile; null: none.
  virtual const choice_param* profile_param() const { return nullptr; }
};

// owner: the NIC (parameters are named under it); mac: the NIC's port, for the line rate
// (mac.wire().current_rate(), read at run time).
using rp_policies = policy_registry<reaction_point_maker, const sc_core::sc_object&, const mac_port&>;

}  // namespace sluice
