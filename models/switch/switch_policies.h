// The switch's policy registries (see models/core/policy_registry.h and docs/architecture.md,
// "Policies by name"). Each is chosen by a choice parameter whose choices are the registered
// names:
//
//   registry             interface             parameter (default)              made
//   scheduler_policies   scheduler_if          <sw>.port<i>.scheduler (strict-dwrr)  per port
//   threshold_policies   threshold_policy      <sw>.mmu.threshold (dynamic)     per switch
//   forwarding_policies  path_selector         <sw>.forwarding (ecmp)           per switch
//   cp_policies          congestion_point_if   <sw>.port<i>.prio<k>.cp (none)   per port and class
//
// A congestion point is made before the second pass of the parameter overrides, so it may
// declare parameters of its own under its port and class (owner, cls): "sw0.port3.prio3.ecn.kmin".
#pragma once
#include <memory>

#include "models/core/policy_registry.h"
#include "models/switch/forwarding_table.h"
#include "models/switch/shared_buffer.h"
#include "models/switch/switch_blocks.h"

namespace sluice {

struct scheduler_config;

using scheduler_policies = policy_registry<scheduler_if, const scheduler_config&>;
using threshold_policies = policy_registry<threshold_policy>;
using forwarding_policies = policy_registry<path_selector>;
// owner: the switch port (parameters are named under it with class cls); injector: the switch,
// for frames the congestion point makes (CNMs).
using cp_policies = policy_registry<congestion_point_if, const sc_core::sc_object&, int, frame_injector_if&>;

// A congestion point's target depth (QCN's or ECM's Qeq) that its queue can never reach is a
// config_error "<key>: '<value>' is above the switch buffer of class k (<bytes>)".
void check_within_buffer(const param<byte_count>& depth, int cls, uint64_t buffer_bytes);

}  // namespace sluice
