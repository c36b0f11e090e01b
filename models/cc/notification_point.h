// A notification point (NP) sits at the receiver and sees every data frame that arrives; it may
// answer with frames of its own (CNP, ACK) through the NIC's control path.
//
//   registry      interface               parameter (default)   made
//   np_policies   notification_point_if   <nic>.np (none)       one per NIC
//
// Made before the second pass of the parameter overrides, so it may declare parameters of its
// own under the NIC (owner): "h0.np.<leaf>".
#pragma once
#include <cstdint>
#include <systemc>

#include "models/cc/control_sender.h"
#include "models/cc/flow.h"
#include "models/core/packet.h"
#include "models/core/policy_registry.h"

namespace sluice {

class choice_param;

class notification_point_if {
 public:
  virtual ~notification_point_if() = default;
  // A data frame of one of this NIC's incoming flows arrived (after it was counted).
  virtual void on_data(const packet_header& h, uint64_t now_ps) = 0;
  // Defaults derived from other parameters (a profile's), once the overrides are final and
  // before check(); a parameter the user set keeps its value.
  virtual void derive_defaults() {}
  // Cross-parameter checks, once the overrides are final (throws config_error, one line).
  virtual void check() const {}
  // The parameter naming whose receiver this is (np.profile), to match the senders' profile
  // (reaction_point_maker::profile_param); null: none.
  virtual const choice_param* profile_param() const { return nullptr; }
};

// owner: the NIC; sender: where it hands frames it makes (CNPs, ACKs); flows: every flow of the
// fabric, by id.
using np_policies =
    policy_registry<notification_point_if, const sc_core::sc_object&, control_sender_if&, const flow_table&>;

}  // namespace sluice
