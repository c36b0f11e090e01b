// Random direct vectors for the egress scheduler block: configurations and requests drawn from a
// seeded generator, with the corner cases the issue names (all queues eligible, none eligible,
// maximum-size heads, weight 0) drawn often.
#pragma once
#include <cstdint>

#include "models/core/random.h"
#include "models/rtl/egress_sched_reference.h"

namespace sluice::test {

class sched_vectors {
 public:
  explicit sched_vectors(uint64_t seed, bool allow_weight_zero = true) : state_(seed), zero_(allow_weight_zero) {}

  sched_block_config config() {
    sched_block_config c;
    c.strict_mask = below(4) == 0 ? static_cast<uint32_t>(next()) & 0xffff : 0;
    for (auto& w : c.weight) {
      const uint64_t kind = below(10);
      w = kind == 0 && zero_ ? 0
          : kind < 6         ? 1 + static_cast<uint32_t>(below(8))
                             : 1 + static_cast<uint32_t>(below(1 << 20) - 1);
    }
    // The quantum log-uniform over the model's range, 64 .. 2^24 bytes.
    c.quantum = static_cast<uint32_t>(64ull << below(19));
    c.quantum += static_cast<uint32_t>(below(c.quantum));
    if (c.quantum > (1u << 24)) c.quantum = 1u << 24;
    return c;
  }

  sched_request request() {
    sched_request r;
    const uint64_t kind = below(8);
    r.eligible = kind == 0 ? 0xffff : kind == 1 ? 0 : static_cast<uint32_t>(next()) & 0xffff;
    const bool max_heads = below(8) == 0;
    for (int q = 0; q < max_classes; ++q) {
      const bool present = (r.eligible >> q & 1) || below(2) == 0;  // ineligible: empty or paused
      r.head[q] = !present ? 0 : max_heads ? 65535 : 64 + static_cast<uint32_t>(below(9216 - 64 + 1));
    }
    return r;
  }

 private:
  uint64_t next() { return state_ = mix64(state_ + 0x9e3779b97f4a7c15ull); }
  uint64_t below(uint64_t n) { return next() % n; }
  uint64_t state_;
  bool zero_;
};

}  // namespace sluice::test
