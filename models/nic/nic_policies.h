// The NIC's policy registries (see models/core/policy_registry.h and docs/architecture.md,
// "Policies by name"):
//
//   registry      interface               parameter (default)   made
//   np_policies   notification_point_if   <nic>.np (none)       one per NIC
//   rp_policies   reaction_point_if       <nic>.rp (none)       one per flow the NIC sends
//
// Both are made before the second pass of the parameter overrides, so they may declare
// parameters of their own under the NIC (owner): "h0.np.<leaf>". A reaction point is made once
// per flow; parameters it needs are best declared once per NIC (e.g. by a function-local
// registry keyed by the NIC), since every flow's instance shares the owner.
#pragma once
#include <memory>

#include "models/core/policy_registry.h"
#include "models/nic/cc_slots.h"
#include "models/nic/flow.h"
#include "models/nic/rate_limiter.h"

namespace sluice {

// owner: the NIC; sender: where it hands frames it makes (CNPs, ACKs); flows: every flow of the
// fabric, by id.
using np_policies =
    policy_registry<notification_point_if, const sc_core::sc_object&, control_sender_if&, const flow_table&>;
// owner: the NIC; the flow it reacts for; the flow's rate limiter (the knob).
using rp_policies = policy_registry<reaction_point_if, const sc_core::sc_object&, const flow&, rate_limiter_if&>;

}  // namespace sluice
