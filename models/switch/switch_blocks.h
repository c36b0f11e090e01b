// The interfaces between a switch's blocks, so a later model (RTL through Verilator, firmware,
// another policy) can be bound in place of the default without touching the datapath. The MMU
// and forwarding are sc_interfaces reached through sc_ports; the egress scheduler and the
// congestion point, called once per frame inside a port, are plain interfaces.
#pragma once
#include <array>
#include <systemc>

#include "models/core/packet.h"
#include "models/link/flow_control.h"
#include "models/switch/shared_buffer.h"

namespace sluice {

// The MMU: ingress admission against the shared buffer and the flow-control verdicts.
class mmu_if : public virtual sc_core::sc_interface {
 public:
  // Returns false if the frame must be dropped; sets xoff_due when the group must be paused.
  virtual bool admit(int port, int priority, uint32_t bytes, bool& xoff_due) = 0;
  // Returns the bytes; every group that may resume as a result (this one, or under dynamic
  // thresholds any paused group, since the free pool grew) is reported to the listener.
  virtual void release(int port, int priority, uint32_t bytes) = 0;
  virtual void set_listener(resume_listener* listener) = 0;
  virtual bool pg_paused(int port, int priority) const = 0;
  // Re-evaluates a paused group's XON condition; true if it resumes now (not reported).
  virtual bool try_resume(int port, int priority) = 0;
  // Current occupancy and high-water marks of the priority group, for statistics.
  virtual pg_usage usage(int port, int priority) const = 0;
  // Configuration as this MMU applies it, for reports: whether a class is lossless (PFC-
  // protected) and the headroom of a lossless group in bytes.
  virtual bool is_lossless(int priority) const = 0;
  virtual uint64_t headroom_bytes(int port, int priority) const = 0;
  // The group's XON hysteresis below its XOFF threshold, in bytes (TCD's B1 - B0).
  virtual uint64_t xon_offset_bytes(int port, int priority) const { return 0; }
  // The most bytes of class `priority` this MMU can ever hold, the bound of any egress queue's
  // depth at that class (a congestion point's Qeq above it is a config error); unknown: no bound.
  virtual uint64_t capacity_bytes(int priority) const { return UINT64_MAX; }
};

struct scheduler_config;

// An egress scheduler: which class queue of a port sends next. head_bytes[q] is the size of
// queue q's head frame (0 if empty); bit q of eligible is set if q may send now. Returns the
// queue, or -1; the choice is committed (the scheduler charges its state for the frame).
class scheduler_if {
 public:
  virtual ~scheduler_if() = default;
  virtual int select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) = 0;
  // A live weight or quantum changed during the run: the new configuration applies from the
  // next choice on, the round in progress keeps its state. Default: nothing to recompute.
  virtual void reconfigure(const scheduler_config&) {}
};

// Forwarding: the output port of a frame, or -1 if it has no route.
class forwarding_if : public virtual sc_core::sc_interface {
 public:
  virtual int route(const packet_header& h, int in_port) const = 0;
};

// A frame the switch itself makes (a CNM, a BCN message): routed like data to h.dst and queued
// on the output port's class queue, outside MMU accounting.
class frame_injector_if {
 public:
  virtual ~frame_injector_if() = default;
  virtual void inject(tlm::tlm_generic_payload* frame) = 0;
  virtual uint32_t node_id() const = 0;
};

// One egress queue as a congestion point sees it, after the change being reported.
struct queue_view {
  int port = 0, cls = 0;
  uint64_t bytes = 0;  // queue depth (frames in the pipeline included)
  uint32_t frames = 0;
  uint64_t port_mac = 0;                  // the egress port's MAC address (a CPID source)
  const flow_control_if* gate = nullptr;  // the port's flow control: its ON-OFF pattern (NP-ECN, TCD)
  // Bytes that have cleared the switch pipeline and wait in the queue: frames still in the
  // pipeline (ready_ps in the future) have not reached the queue yet (TCD's queue). Counted up
  // to the first frame still in the pipeline (a queue leaves in order).
  uint64_t waiting_bytes = 0;
};

// A congestion point: sees every data frame entering and leaving one egress queue. It may mark
// the frame (ECN, FECN) or make a frame of its own toward the frame's source through the
// switch's frame_injector_if. QCN, ECM, RED/ECN, NP-ECN and TCD are congestion points.
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

}  // namespace sluice
