// Where a congestion point hands a frame the switch itself makes (a CNM, a BCN message): routed
// like data to h.dst and queued on the output port's class queue, outside MMU accounting.
#pragma once
#include <cstdint>
#include <tlm>

namespace sluice {

class frame_injector_if {
 public:
  virtual ~frame_injector_if() = default;
  virtual void inject(tlm::tlm_generic_payload* frame) = 0;
  virtual uint32_t node_id() const = 0;
};

}  // namespace sluice
