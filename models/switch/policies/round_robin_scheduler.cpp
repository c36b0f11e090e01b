// Egress scheduler "round-robin": one frame per eligible class in turn, in class order, starting
// after the class served last. Frame-based: frame sizes, weights and prio<k>.sched are ignored.
#include "models/switch/egress_scheduler.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
class round_robin final : public scheduler_if {
 public:
  int select(const std::array<uint32_t, max_classes>&, uint32_t eligible) override {
    if (!eligible) return -1;
    const uint32_t after = eligible & ~((1u << next_) - 1);  // eligible classes >= next_
    const int q = __builtin_ctz(after ? after : eligible);
    next_ = (q + 1) % max_classes;
    return q;
  }

 private:
  int next_ = 0;
};
const policy_registrar<scheduler_policies> reg{
    "round-robin",
    "one frame per eligible class in turn (class order; weights and prio<k>.sched ignored)",
    [](const scheduler_config&, const sc_core::sc_object*) { return std::make_unique<round_robin>(); },
    {}};
}  // namespace
}  // namespace sluice
