// A congestion point (CP): sees every data frame entering and leaving one switch egress queue.
// It may mark the frame (ECN, FECN) or make a frame of its own toward the frame's source through
// the switch's frame_injector_if. QCN, ECM, RED/ECN, NP-ECN and TCD are congestion points.
//
//   registry      interface             parameter (default)              made
//   cp_policies   congestion_point_if   <sw>.port<i>.prio<k>.cp (none)   per port and class
//
// A congestion point is made before the second pass of the parameter overrides, so it may
// declare parameters of its own under its port and class (owner, cls): "sw0.port3.prio3.ecn.kmin".
#pragma once
#include <cstdint>
#include <systemc>

#include "models/cc/frame_injector.h"
#include "models/cc/queue_view.h"
#include "models/core/packet.h"
#include "models/core/policy_registry.h"
#include "models/core/probe.h"

namespace sluice {

class congestion_point_if {
 public:
  virtual ~congestion_point_if() = default;
  virtual void on_enqueue(packet_header& h, const queue_view& q) = 0;
  virtual void on_dequeue(packet_header& h, const queue_view& q) = 0;
  // Cross-parameter checks, once the overrides are final (throws config_error, one line).
  // buffer_bytes: the most bytes the switch can hold at this queue's class (mmu_if::capacity_bytes).
  virtual void check(uint64_t buffer_bytes) const {}
  // A detector's current verdict, for the cp_state time series (TCD: 0 non-congestion,
  // 1 undetermined, 2 congestion); -1: this congestion point keeps none.
  virtual int state() const { return -1; }
};

// owner: the switch port (parameters are named under it with class cls); injector: the switch,
// for frames the congestion point makes (CNMs).
using cp_policies = policy_registry<congestion_point_if, const sc_core::sc_object&, int, frame_injector_if&>;

// A sampling congestion point (QCN, ECM) computed its feedback Fb = -(Qoff + w Qdelta) at a
// sampled frame: `value` is Fb in bytes, signed (two's complement; negative: congestion). Each
// such point declares it under its port and scope, "sw0.port4.prio3.qcn.sample"; the waveform's
// <port>.prio<k>.fb signal subscribes to it (platforms/waveform.*).
namespace probes {
extern probe_kind cp_sample;
}

// A congestion point's target depth (QCN's or ECM's Qeq) that its queue can never reach is a
// config_error "<key>: '<value>' is above the switch buffer of class k (<bytes>)".
void check_within_buffer(const param<byte_count>& depth, int cls, uint64_t buffer_bytes);

}  // namespace sluice
