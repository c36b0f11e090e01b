// The egress scheduler as a block boundary: called once per frame inside a port, a plain
// interface; a port binds the policy its `scheduler` parameter names, or one bound by hand.
#pragma once
#include <array>
#include <cstdint>

#include "models/core/packet.h"

namespace sluice {

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
  // A block that takes time to decide (an RTL scheduler clocked for some cycles): the port asks
  // it through the split-phase seam and the answer comes this long after the request. 0: at once.
  virtual uint64_t decision_latency_ps() const { return 0; }
};

}  // namespace sluice
