// Forwarding policy "random": each frame takes one of its destination's equal-cost ports at
// random, whatever its flow (packet spraying; the oblivious "random" routing that [SwitchAR] and
// [R3C2] compare against). A flow's frames take different paths and may arrive out of order: its
// receiver resequences. The draws are a hash of a per-switch counter and the switch's salt, so a
// run with the same seed draws the same ports.
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
class random_path final : public path_selector {
 public:
  std::size_t select(const std::vector<uint16_t>& ports, uint32_t, uint32_t, uint32_t, uint64_t salt) const override {
    return mix64(salt ^ ++draws_) % ports.size();
  }

 private:
  mutable uint64_t draws_ = 0;  // the selector's own state: the draw count
};
const policy_registrar<forwarding_policies> reg{
    "random", "each frame a uniformly random equal-cost port (packet spraying; receivers resequence)",
    [] { return std::make_unique<random_path>(); }};
}  // namespace
}  // namespace sluice
