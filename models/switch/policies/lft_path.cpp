// Forwarding policy "lft": an InfiniBand linear forwarding table, one output port per
// destination LID (LID = node id + 1), spread over the equal-cost ports by destination (LID mod
// the number of ports), as OpenSM's min-hop routing balances destinations over ports. Every
// flow to a destination takes the same path, whatever its source. The default of InfiniBand
// switches; the fat-tree builder's d-mod-k tables leave it one port to choose from.
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
struct lft_path final : path_selector {
  std::size_t select(const std::vector<uint16_t>& ports, uint32_t dst, uint32_t, uint32_t, uint64_t) const override {
    return (dst + 1) % ports.size();
  }
};
const policy_registrar<forwarding_policies> reg{
    "lft", "one port per destination LID (node id + 1), LIDs spread over the equal-cost ports (InfiniBand LFT)",
    [] { return std::make_unique<lft_path>(); }};
}  // namespace
}  // namespace sluice
