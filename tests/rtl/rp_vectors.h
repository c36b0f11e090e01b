// Random direct vectors for the DCQCN reaction-point block: configurations (every rule
// combination, g, steps and minimum rates over their widths) and events on contexts drawn at
// random or carried over from the previous answer (a flow's life), with the corners drawn often:
// the line rate, the minimum rate, alpha 0 and saturated, stage counts at and near saturation.
#pragma once
#include <cstdint>

#include "models/core/random.h"
#include "models/rtl/dcqcn_rp_reference.h"

namespace sluice::test {

class rp_vectors {
 public:
  explicit rp_vectors(uint64_t seed) : state_(seed) {}

  rp_block_config config() {
    rp_block_config c;
    const uint64_t g = below(4);
    c.g = g == 0 ? 256 : g == 1 ? 320 : g == 2 ? 1 + static_cast<uint32_t>(below(0xffff)) : 1u << below(16);
    c.rai = rate_step();
    c.rhai = rate_step();
    c.min_rate = below(4) == 0 ? 0 : static_cast<uint32_t>(below(1u << 18));
    c.fast_recovery = below(8) == 0 ? static_cast<uint32_t>(below(256)) : static_cast<uint32_t>(below(11));
    c.rules = static_cast<uint32_t>(below(64));
    return c;
  }

  rp_event event() { return static_cast<rp_event>(below(6)); }

  // A context: the previous answer's (carried over) half the time, else a fresh one.
  rp_context context(const rp_context& previous) {
    if (below(2) == 0) return previous;
    rp_context x;
    x.rc = rate();
    x.rt = below(3) == 0 ? x.rc : rate();
    const uint64_t a = below(6);
    x.alpha = a == 0 ? 0 : a == 1 ? rp_widths::alpha_max : static_cast<uint32_t>(below(rp_widths::alpha_max + 1));
    x.timer_stage = stage();
    x.byte_stage = stage();
    x.time_inc = below(2);
    x.cnp_in_window = below(2);
    return x;
  }

 private:
  uint32_t rate() {
    const uint64_t k = below(6);
    return k == 0   ? rp_widths::line
           : k == 1 ? static_cast<uint32_t>(below(64))
                    : static_cast<uint32_t>(below(rp_widths::line + 1));
  }
  uint32_t rate_step() { return static_cast<uint32_t>(below(1u << (1 + below(20)))); }
  uint32_t stage() {
    const uint64_t k = below(8);
    return k == 0 ? 250 + static_cast<uint32_t>(below(6)) : static_cast<uint32_t>(below(13));
  }
  uint64_t next() { return state_ = mix64(state_ + 0x9e3779b97f4a7c15ull); }
  uint64_t below(uint64_t n) { return next() % n; }
  uint64_t state_;
};

}  // namespace sluice::test
