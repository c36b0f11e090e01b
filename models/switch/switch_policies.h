// The switch's policy registries (see models/core/policy_registry.h and docs/architecture.md,
// "Policies by name"). Each is chosen by a choice parameter whose choices are the registered
// names:
//
//   registry             interface             parameter (default)              made
//   scheduler_policies   scheduler_if          <sw>.port<i>.scheduler (strict-dwrr)  per port
//   threshold_policies   threshold_policy      <sw>.mmu.threshold (dynamic)     per switch
//   forwarding_policies  path_selector         <sw>.forwarding (ecmp)           per switch
//
// The congestion point's registry (cp_policies) is in models/cc/congestion_point.h.
#pragma once
#include <memory>
#include <systemc>

#include "models/core/policy_registry.h"
#include "models/switch/forwarding_table.h"
#include "models/switch/scheduler_if.h"
#include "models/switch/shared_buffer.h"

namespace sluice {

struct scheduler_config;

// A scheduler is made with its configuration and the port that owns it (null in unit tests), under
// which it may declare parameters of its own (it is made before the overrides' second pass).
using scheduler_policies = policy_registry<scheduler_if, const scheduler_config&, const sc_core::sc_object*>;
using threshold_policies = policy_registry<threshold_policy>;
using forwarding_policies = policy_registry<path_selector>;

}  // namespace sluice
