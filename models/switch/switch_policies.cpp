// The empty congestion point; the other switch policies register next to their code.
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const policy_registrar<cp_policies> no_cp{"none", "no congestion point",
                                          [](const sc_core::sc_object&, int, frame_injector_if&) {
                                            return std::unique_ptr<congestion_point_if>();
                                          }};
}  // namespace
}  // namespace sluice
