#include "models/switch/egress_scheduler.h"

#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const policy_registrar<scheduler_policies> reg{
    "strict-dwrr",
    "prio<k>.sched strict classes first (highest first), the others by DWRR (weight, dwrr.quantum)",
    [](const scheduler_config& c, const sc_core::sc_object*) { return std::make_unique<egress_scheduler>(c); },
    {"sched", "weight", "dwrr.quantum"}};
// Its RTL twin (models/rtl/) is built only with Verilator: a build without says so.
const absent_choice rtl_twin{"strict-dwrr-rtl", without_verilator};
}  // namespace

egress_scheduler::egress_scheduler(const scheduler_config& config) : config_(config) {
  for (int q = 0; q < max_classes; ++q) (config_.strict[q] ? strict_mask_ : dwrr_mask_) |= 1u << q;
  reconfigure(config);
}

void egress_scheduler::reconfigure(const scheduler_config& config) {
  config_.weight = config.weight;
  config_.quantum = config.quantum;
  for (int q = 0; q < max_classes; ++q) dwrr_[q].grant = static_cast<uint64_t>(config_.weight[q]) * config_.quantum;
}

int egress_scheduler::select_visiting(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) {
  const uint32_t dwrr = eligible & dwrr_mask_;
  for (uint32_t idle = dwrr_mask_ & credited_ & ~eligible; idle; idle &= idle - 1) {
    int q = __builtin_ctz(idle);
    if (head_bytes[q] == 0) {  // an emptied queue forfeits its deficit
      dwrr_[q].deficit = 0;
      credited_ &= ~(1u << q);
    }
  }
  if (!dwrr) return -1;
  if (!(dwrr & (dwrr - 1))) return select_alone(__builtin_ctz(dwrr), head_bytes[__builtin_ctz(dwrr)]);
  // Visit only eligible queues, in cyclic order from the current one. Each visit of a fresh
  // queue adds a quantum, so the loop ends once some head fits its deficit.
  for (;;) {
    int q = current_;
    if (dwrr >> q & 1) {
      if (fresh_) {
        dwrr_[q].deficit += dwrr_[q].grant;
        credited_ |= 1u << q;
        fresh_ = false;
      }
      if (head_bytes[q] <= dwrr_[q].deficit) {
        dwrr_[q].deficit -= head_bytes[q];
        if (dwrr_[q].deficit == 0) credited_ &= ~(1u << q);
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
