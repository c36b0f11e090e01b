#include "models/switch/egress_scheduler.h"

#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const policy_registrar<scheduler_policies> reg{
    "strict-dwrr", "prio<k>.sched strict classes first (highest first), the others by DWRR (weight, dwrr.quantum)",
    [](const scheduler_config& c) { return std::make_unique<egress_scheduler>(c); }};
}  // namespace

int egress_scheduler::select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) {
  for (int q = max_classes - 1; q >= 0; --q)
    if (config_.strict[q] && (eligible >> q & 1)) return q;

  uint32_t dwrr = 0;
  for (int q = 0; q < max_classes; ++q) {
    if (config_.strict[q]) continue;
    if (eligible >> q & 1)
      dwrr |= 1u << q;
    else if (head_bytes[q] == 0)
      deficit_[q] = 0;  // an emptied queue forfeits its deficit
  }
  if (!dwrr) return -1;
  // Visit only eligible queues, in cyclic order from the current one. Each visit of a fresh
  // queue adds a quantum, so the loop ends once some head fits its deficit.
  for (;;) {
    int q = current_;
    if (dwrr >> q & 1) {
      if (fresh_) {
        deficit_[q] += static_cast<uint64_t>(config_.weight[q]) * config_.quantum;
        fresh_ = false;
      }
      if (head_bytes[q] <= deficit_[q]) {
        deficit_[q] -= head_bytes[q];
        return q;
      }
    }
    current_ = next_in(dwrr, current_);
    fresh_ = true;
  }
}

int egress_scheduler::next_in(uint32_t mask, int after) {
  uint32_t higher = mask & ~((2u << after) - 1);  // members above `after`
  return __builtin_ctz(higher ? higher : mask);
}

}  // namespace sluice
