// The switch's MMU as a block boundary, so a later model (RTL through Verilator, firmware) can be
// bound in place of the default without touching the datapath: an sc_interface reached through
// the switch's sc_port. The other block interfaces: scheduler_if.h, forwarding_if.h; the
// congestion point's contract is in models/cc.
#pragma once
#include <cstdint>
#include <systemc>

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

}  // namespace sluice
