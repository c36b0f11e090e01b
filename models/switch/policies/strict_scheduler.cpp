// Egress scheduler "strict": pure strict priority by class number, the highest eligible class
// always first (prio<k>.sched, weights and dwrr.quantum ignored).
#include "models/switch/egress_scheduler.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
class strict_priority final : public scheduler_if {
 public:
  int select(const std::array<uint32_t, max_classes>&, uint32_t eligible) override {
    return eligible ? 31 - __builtin_clz(eligible) : -1;
  }
};
const policy_registrar<scheduler_policies> reg{
    "strict",
    "highest eligible class first, always (prio<k>.sched and weights ignored)",
    [](const scheduler_config&, const sc_core::sc_object*) { return std::make_unique<strict_priority>(); },
    {}};
}  // namespace
}  // namespace sluice
