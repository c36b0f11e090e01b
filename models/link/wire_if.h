// What a transmitter needs to know of the wire it drives: its current rate and its delay.
// The MAC's state and flow control see a link only through this; only the MAC's transmit, in
// mac_port.cpp, calls a link channel of ours directly (direct_hops.h).
#pragma once
#include <systemc>

#include "models/core/units.h"

namespace sluice {

class wire_if {
 public:
  virtual ~wire_if() = default;
  virtual data_rate current_rate() const = 0;
  virtual sc_core::sc_time propagation() const = 0;
};

}  // namespace sluice
