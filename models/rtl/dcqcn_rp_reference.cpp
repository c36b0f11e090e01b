#include "models/rtl/dcqcn_rp_reference.h"

#include <algorithm>
#include <cmath>

namespace sluice {
namespace {
using namespace rp_widths;

uint32_t raised(const rp_block_config& c, uint32_t a) {
  return std::min<uint32_t>(a - static_cast<uint32_t>((uint64_t{a} * c.g) >> 16) + c.g, alpha_max);
}
uint32_t decayed(const rp_block_config& c, uint32_t a) { return a - static_cast<uint32_t>((uint64_t{a} * c.g) >> 16); }
uint32_t bumped(uint32_t s) { return std::min(s + 1, stage_max); }

rp_context cut(const rp_block_config& c, rp_context x) {
  const bool per_cnp = !(c.rules & rp_rules::per_window), after = c.rules & rp_rules::cut_after_alpha;
  const uint32_t rc = x.rc;
  if ((c.rules & rp_rules::clamp_target) || ((c.rules & rp_rules::clamp_after_time_inc) && x.time_inc)) x.rt = rc;
  const uint32_t alpha0 = x.alpha;
  if (per_cnp && after) x.alpha = raised(c, alpha0);
  const uint32_t reduced = (rc - static_cast<uint32_t>((uint64_t{rc} * x.alpha) >> 17)) & rate_mask;
  x.rc = std::max(reduced, c.min_rate);
  if (per_cnp && !after) x.alpha = raised(c, alpha0);
  x.timer_stage = x.byte_stage = 0;
  x.time_inc = false;
  return x;
}

rp_context increase(const rp_block_config& c, rp_context x) {
  uint32_t hi = std::max(x.timer_stage, x.byte_stage), lo = std::min(x.timer_stage, x.byte_stage);
  const uint32_t f = c.fast_recovery;
  if (c.rules & rp_rules::hyper_timer) {
    hi = x.timer_stage;
    lo = x.timer_stage > f ? x.timer_stage - 1 : 0;
  }
  uint64_t target = x.rt;
  if (hi <= f) {
  } else if (lo <= f) {
    target += c.rai;
  } else {
    target += (c.rules & rp_rules::hyper_step_fixed) ? c.rhai : uint64_t{(lo - f) & stage_max} * c.rhai;
  }
  x.rt = static_cast<uint32_t>(std::min<uint64_t>(target, line));
  x.rc = std::min<uint32_t>((x.rt + x.rc + 1) >> 1, line);
  return x;
}
}  // namespace

rp_context::packed rp_context::pack() const {
  // Bits, least significant first: cnp_in_window 0, time_inc 1, byte_stage 2-9, timer_stage 10-17,
  // alpha 18-33, rt 34-54, rc 55-75.
  unsigned __int128 w = uint64_t{cnp_in_window} | uint64_t{time_inc} << 1 | uint64_t{byte_stage & stage_max} << 2 |
                        uint64_t{timer_stage & stage_max} << 10 | uint64_t{alpha & alpha_max} << 18 |
                        uint64_t{rt & rate_mask} << 34;
  w |= static_cast<unsigned __int128>(rc & rate_mask) << 55;
  return {static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32), static_cast<uint32_t>(w >> 64) & 0xfff};
}

rp_context rp_context::unpack(const packed& p) {
  const unsigned __int128 w =
      p[0] | static_cast<unsigned __int128>(p[1]) << 32 | static_cast<unsigned __int128>(p[2] & 0xfff) << 64;
  rp_context x;
  x.cnp_in_window = w & 1;
  x.time_inc = w >> 1 & 1;
  x.byte_stage = static_cast<uint32_t>(w >> 2) & stage_max;
  x.timer_stage = static_cast<uint32_t>(w >> 10) & stage_max;
  x.alpha = static_cast<uint32_t>(w >> 18) & alpha_max;
  x.rt = static_cast<uint32_t>(w >> 34) & rate_mask;
  x.rc = static_cast<uint32_t>(w >> 55) & rate_mask;
  return x;
}

rp_answer dcqcn_rp_reference(const rp_block_config& c, rp_event e, const rp_context& in) {
  rp_context x = in;
  switch (e) {
    case rp_event::cnp:
    case rp_event::cnp_noted:
      if (c.rules & rp_rules::per_window) x.cnp_in_window = true;
      if (e == rp_event::cnp) x = cut(c, x);
      break;
    case rp_event::decrease_tick:
      x = cut(c, x);
      break;
    case rp_event::alpha_timer:
      if ((c.rules & rp_rules::per_window) && x.cnp_in_window) {
        x.alpha = raised(c, x.alpha);
        x.cnp_in_window = false;
      } else {
        x.alpha = decayed(c, x.alpha);
      }
      break;
    case rp_event::rate_timer:
      x.timer_stage = bumped(x.timer_stage);
      x.time_inc = true;
      x = increase(c, x);
      break;
    case rp_event::bytes:
      x.byte_stage = bumped(x.byte_stage);
      x = increase(c, x);
      break;
  }
  return {x, 1};
}

std::string to_string(const rp_context& x) {
  return "rc " + std::to_string(x.rc) + " rt " + std::to_string(x.rt) + " alpha " + std::to_string(x.alpha) +
         " stages " + std::to_string(x.timer_stage) + "/" + std::to_string(x.byte_stage) + " flags " +
         std::to_string(x.time_inc) + std::to_string(x.cnp_in_window);
}

const char* event_name(rp_event e) {
  static const char* const names[] = {"cnp", "cnp-noted", "decrease-tick", "alpha-timer", "rate-timer", "bytes"};
  const auto i = static_cast<uint32_t>(e);
  return i < 6 ? names[i] : "?";
}

uint32_t alpha_to_fixed(double alpha) {
  return static_cast<uint32_t>(std::clamp(std::llround(alpha * 65536.0), 0ll, static_cast<long long>(alpha_max)));
}

rp_block_config to_fixed(const dcqcn_rp_config& c) {
  auto rate = [&](double bps) {
    return static_cast<uint32_t>(std::clamp(std::llround(bps / c.line_rate * line), 0ll, static_cast<long long>(line)));
  };
  rp_block_config b;
  b.g = static_cast<uint32_t>(std::clamp(std::llround(c.g * 65536.0), 0ll, 0xffffll));
  b.rai = rate(c.rai);
  b.rhai = rate(c.rhai);
  b.min_rate = rate(c.min_rate);
  b.fast_recovery = std::min<uint32_t>(c.fast_recovery, stage_max);
  b.rules = (c.clamp_target ? rp_rules::clamp_target : 0) |
            (c.clamp_after_time_inc ? rp_rules::clamp_after_time_inc : 0) |
            (c.hyper == dcqcn_hyper_rule::timer ? rp_rules::hyper_timer : 0) |
            (c.hyper_step_fixed ? rp_rules::hyper_step_fixed : 0) |
            (c.alpha_update == dcqcn_alpha_rule::per_window ? rp_rules::per_window : 0) |
            (c.cut_after_alpha_update ? rp_rules::cut_after_alpha : 0);
  return b;
}

}  // namespace sluice
