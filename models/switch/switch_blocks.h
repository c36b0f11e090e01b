// The interfaces between a switch's blocks, so a later model (RTL through Verilator, firmware,
// another policy) can be bound in place of the default without touching the datapath. The MMU
// and forwarding are sc_interfaces reached through sc_ports; the egress scheduler, called once
// per frame inside a port, is a plain interface bound with switch_port::bind_scheduler().
#pragma once
#include <array>
#include <systemc>

#include "models/core/packet.h"
#include "models/switch/shared_buffer.h"

namespace sluice {

// The MMU: ingress admission against the shared buffer and PFC decisions.
class mmu_if : public virtual sc_core::sc_interface {
 public:
  // Returns false if the frame must be dropped; sets xoff_due when the PG must be paused.
  virtual bool admit(int port, int priority, uint32_t bytes, bool& xoff_due) = 0;
  // Sets xon_due when the PG may resume.
  virtual void release(int port, int priority, uint32_t bytes, bool& xon_due) = 0;
  virtual bool pg_paused(int port, int priority) const = 0;
  // Re-evaluates a paused group's XON condition; true if it resumes now.
  virtual bool try_resume(int port, int priority) = 0;
  // Current occupancy and high-water marks of the priority group, for statistics.
  virtual pg_usage usage(int port, int priority) const = 0;
};

// An egress scheduler: which priority queue of a port sends next. head_bytes[q] is the size of
// queue q's head frame (0 if empty); bit q of eligible is set if q may send now. Returns the
// queue, or -1; the choice is committed (the scheduler charges its state for the frame).
class scheduler_if {
 public:
  virtual ~scheduler_if() = default;
  virtual int select(const std::array<uint32_t, num_priorities>& head_bytes, uint32_t eligible) = 0;
};

// Forwarding: the output port of a frame, or -1 if it has no route.
class forwarding_if : public virtual sc_core::sc_interface {
 public:
  virtual int route(const packet_header& h, int in_port) const = 0;
};

}  // namespace sluice
