// The DCQCN reaction-point block (rtl/sluice_dcqcn_rp.sv) in C++: the same widths, the same
// rounding, the same context layout, so that the RTL and this reference agree bit for bit. It is
// the lockstep checker's reference and the random-vector tests' oracle. The floating-point model
// it approximates is dcqcn_rp_state (models/cc/dcqcn/dcqcn_rp.h); to_fixed converts that model's
// configuration, and docs/rtl.md reports how far the two drift apart.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "models/cc/dcqcn/dcqcn_rp.h"

namespace sluice {

// The block's widths (bits) and scales.
namespace rp_widths {
constexpr int rate = 21, alpha = 16, g = 16, stage = 8, context = 76;
constexpr uint32_t line = 1u << 20;     // the line rate: rates are fractions of it, 2^-20 each
constexpr uint32_t alpha_max = 0xffff;  // alpha in 2^-16, saturating below 1
constexpr uint32_t stage_max = 0xff;    // stage counts saturate
constexpr uint32_t rate_mask = (1u << rate) - 1;
}  // namespace rp_widths

// Events: incoming (a CNP) and timeout (the rest), the RTL's event_kind.
enum class rp_event : uint32_t {
  cnp = 0,
  cnp_noted = 1,
  decrease_tick = 2,
  alpha_timer = 3,
  rate_timer = 4,
  bytes = 5
};

// What the block is configured with: dcqcn_rp_config in the block's units.
struct rp_block_config {
  uint32_t g = 256;                          // 2^-16
  uint32_t rai = 0, rhai = 0, min_rate = 0;  // line / 2^20
  uint32_t fast_recovery = 5;
  // {cut_after_alpha, per_window, hyper_step_fixed, hyper_timer, clamp_after_time_inc, clamp_target}
  uint32_t rules = 1;
  bool operator==(const rp_block_config& o) const {
    return g == o.g && rai == o.rai && rhai == o.rhai && min_rate == o.min_rate && fast_recovery == o.fast_recovery &&
           rules == o.rules;
  }
};
namespace rp_rules {
constexpr uint32_t clamp_target = 1, clamp_after_time_inc = 2, hyper_timer = 4, hyper_step_fixed = 8, per_window = 16,
                   cut_after_alpha = 32;
}

// One flow's context, unpacked; pack() gives the 76-bit word the RTL reads (3 x 32 bits, least
// significant first: cnp_in_window is bit 0, rc bits 55-75).
struct rp_context {
  uint32_t rc = rp_widths::line, rt = rp_widths::line, alpha = rp_widths::alpha_max;
  uint32_t timer_stage = 0, byte_stage = 0;
  bool time_inc = false, cnp_in_window = false;
  using packed = std::array<uint32_t, 3>;
  packed pack() const;
  static rp_context unpack(const packed& p);
  bool operator==(const rp_context& o) const { return pack() == o.pack(); }
  bool operator!=(const rp_context& o) const { return !(*this == o); }
};

struct rp_answer {
  rp_context ctx;
  uint32_t cycles = 0;  // clock edges from start to valid
  bool operator==(const rp_answer& o) const { return ctx == o.ctx && cycles == o.cycles; }
  bool operator!=(const rp_answer& o) const { return !(*this == o); }
};

// For reports: "rc 524288 rt 1048576 alpha 65535 stages 0/0 flags 00", and the event's name.
std::string to_string(const rp_context& x);
const char* event_name(rp_event e);

// The block's update, a pure function of the configuration, the event and the context.
rp_answer dcqcn_rp_reference(const rp_block_config& c, rp_event e, const rp_context& x);

// The floating-point model's configuration (at its line rate) and alpha in the block's units:
// rates and g rounded to the nearest step, alpha saturated.
rp_block_config to_fixed(const dcqcn_rp_config& c);
uint32_t alpha_to_fixed(double alpha);
// A fixed-point rate in bit/s at `line_bps`.
inline double rate_bps(uint32_t r, double line_bps) { return line_bps * r / rp_widths::line; }

}  // namespace sluice
