// The empty congestion point; the other switch policies register next to their code.
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const policy_registrar<cp_policies> no_cp{"none", "no congestion point",
                                          [](const sc_core::sc_object&, int, frame_injector_if&) {
                                            return std::unique_ptr<congestion_point_if>();
                                          }};
}  // namespace

void check_within_buffer(const param<byte_count>& depth, int cls, uint64_t buffer_bytes) {
  if (depth().bytes > buffer_bytes)
    throw config_error(depth.name() + ": '" + format_bytes(depth()) + "' is above the switch buffer of class " +
                       std::to_string(cls) + " (" + format_bytes(byte_count{buffer_bytes}) +
                       ": shared pool, reserves and headroom)");
}

}  // namespace sluice
