// Forwarding policy "first": always the first equal-cost port (in port order), a deterministic
// single path per destination.
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
struct first_path final : path_selector {
  std::size_t select(const std::vector<uint16_t>&, uint32_t, uint32_t, uint32_t, uint64_t) const override { return 0; }
};
const policy_registrar<forwarding_policies> reg{"first", "always the lowest-numbered equal-cost port (one path)",
                                                [] { return std::make_unique<first_path>(); }};
}  // namespace
}  // namespace sluice
