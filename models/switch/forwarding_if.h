// Forwarding as a block boundary: an sc_interface reached through the switch's sc_port, so a
// replacement (RTL, firmware) can be bound in place of the default table.
#pragma once
#include <systemc>

#include "models/core/packet.h"

namespace sluice {

// Forwarding: the output port of a frame, or -1 if it has no route.
class forwarding_if : public virtual sc_core::sc_interface {
 public:
  virtual int route(const packet_header& h, int in_port) const = 0;
};

}  // namespace sluice
