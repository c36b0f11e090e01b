// The Verilated DCQCN reaction-point block against its C++ fixed-point reference (random direct
// vectors, corners, the mutant), and the fixed-point reference against the floating-point model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "models/cc/dcqcn/dcqcn_profiles.h"
#include "models/rtl/rp_block.h"
#include "tests/rtl/rp_vectors.h"

using namespace sluice;

namespace {
constexpr int per_config = 1000;  // events per configuration

std::string describe(const rp_context& x) {
  std::ostringstream s;
  s << "rc " << x.rc << " rt " << x.rt << " alpha " << x.alpha << " stages " << x.timer_stage << "/" << x.byte_stage
    << " flags " << x.time_inc << x.cnp_in_window;
  return s.str();
}

// Runs `n` events through the block and the reference; the first difference, or "".
std::string first_difference(rp_block& block, uint64_t n, uint64_t seed) {
  test::rp_vectors v(seed);
  rp_block_config c;
  rp_context previous;
  for (uint64_t i = 0; i < n; ++i) {
    if (i % per_config == 0) {
      c = v.config();
      block.configure(c);
    }
    const rp_event e = v.event();
    const rp_context x = v.context(previous);
    const rp_answer a = block.call(e, x, i * 1000), b = dcqcn_rp_reference(c, e, x);
    if (a != b) {
      std::ostringstream s;
      s << "vector " << i << ": event " << static_cast<int>(e) << " on " << describe(x) << ": rtl " << describe(a.ctx)
        << " in " << a.cycles << ", reference " << describe(b.ctx) << " in " << b.cycles;
      return s.str();
    }
    previous = a.ctx;
  }
  return "";
}

uint64_t vectors_from_env(uint64_t fallback) {
  const char* n = std::getenv("SLUICE_RTL_VECTORS");
  return n ? std::strtoull(n, nullptr, 10) : fallback;
}
}  // namespace

TEST(RtlDcqcnRp, RandomVectorsAgreeWithTheReference) {
  // 10^5 here; `cmake --build build --target rtl-vectors` runs 10^6 (SLUICE_RTL_VECTORS).
  auto block = make_verilated_dcqcn_rp(rp_rtl_build::fast);
  const uint64_t n = vectors_from_env(100000);
  EXPECT_EQ(first_difference(*block, n, 1), "");
  std::cout << n << " reaction-point events agree\n";
}

TEST(RtlDcqcnRp, TheTracedBuildIsTheSameBlock) {
  auto block = make_verilated_dcqcn_rp(rp_rtl_build::traced);
  EXPECT_EQ(first_difference(*block, 20000, 2), "");
}

TEST(RtlDcqcnRp, TheMutantIsCaught) {
  // One wrong bit in the cut rate: the vectors find it.
  auto block = make_verilated_dcqcn_rp(rp_rtl_build::mutant);
  const std::string diff = first_difference(*block, 100000, 1);
  EXPECT_NE(diff, "");
  std::cout << "mutant: " << diff << '\n';
}

TEST(RtlDcqcnRp, TheContextPacksAsTheRtlReadsIt) {
  rp_context x;
  x.rc = 0x1abcde;
  x.rt = 0x054321;
  x.alpha = 0xbeef;
  x.timer_stage = 0xa5;
  x.byte_stage = 0x3c;
  x.time_inc = true;
  const rp_context::packed p = x.pack();
  EXPECT_EQ(p[0] & 3u, 2u);                                // cnp_in_window bit 0, time_inc bit 1
  EXPECT_EQ(p[0] >> 2 & 0xff, 0x3cu);                      // byte stage, bits 2-9
  EXPECT_EQ(p[0] >> 10 & 0xff, 0xa5u);                     // timer stage, bits 10-17
  EXPECT_EQ((p[0] >> 18 | p[1] << 14) & 0xffff, 0xbeefu);  // alpha, bits 18-33
  EXPECT_EQ(p[2] >> 11, 0x1abcdeu >> 20);                  // rc's top bit is bit 75
  EXPECT_EQ(rp_context::unpack(p), x);
}

TEST(RtlDcqcnRp, Corners) {
  auto block = make_verilated_dcqcn_rp(rp_rtl_build::fast);
  const rp_block_config c = to_fixed(dcqcn_paper.rp_config(40e9));
  EXPECT_EQ(c.g, 256u);
  EXPECT_EQ(c.rai, 1049u);  // 40 Mb/s of 40 Gb/s, x 2^20
  EXPECT_EQ(c.min_rate, 2621u);
  block->configure(c);
  auto both = [&](rp_event e, const rp_context& x) {
    const rp_answer a = block->call(e, x, 0);
    EXPECT_EQ(a, dcqcn_rp_reference(c, e, x)) << describe(a.ctx);
    EXPECT_EQ(a.cycles, 1u);
    return a.ctx;
  };
  // The first CNP at the line rate with alpha saturated: the rate halves, rounded up.
  rp_context x = both(rp_event::cnp, rp_context{});
  EXPECT_EQ(x.rc, rp_widths::line - ((uint64_t{rp_widths::line} * 0xffff) >> 17));
  EXPECT_EQ(x.rt, rp_widths::line);          // the paper's profile clamps rt to the old rc
  EXPECT_EQ(x.alpha, rp_widths::alpha_max);  // raised, saturated
  // Cuts stop at the minimum rate.
  for (int i = 0; i < 20; ++i) x = both(rp_event::cnp, x);
  EXPECT_EQ(x.rc, c.min_rate);
  // Alpha decays to 2^16 / g - 1 and stays (the truncated product).
  for (int i = 0; i < 3000; ++i) x = both(rp_event::alpha_timer, x);
  EXPECT_EQ(x.alpha, 255u);
  // Recovery reaches the line rate exactly (the mean rounds up).
  for (int i = 0; i < 2000 && x.rc < rp_widths::line; ++i) x = both(rp_event::rate_timer, x);
  EXPECT_EQ(x.rc, rp_widths::line);
  EXPECT_EQ(x.rt, rp_widths::line);
  EXPECT_EQ(x.timer_stage, rp_widths::stage_max);  // saturated on the way
}

namespace {
// One flow's events in open loop, the same for both models: CNPs every 50 us for 1 ms, then none;
// the alpha and rate timers (55 us, restarted by each CNP) and the byte counter (the float
// model's rate) until 6 ms. Returns the largest difference of rc, in units of the line rate.
struct drift {
  double rc = 0, rt = 0, alpha = 0;
};
drift open_loop_drift(const dcqcn_profile& p, double line) {
  const dcqcn_rp_config cf = p.rp_config(line);
  const rp_block_config cx = to_fixed(cf);
  dcqcn_rp_state f(line, p.alpha_init);
  rp_context x;
  x.alpha = alpha_to_fixed(p.alpha_init);
  const uint64_t us = 1'000'000, tau = p.alpha_timer_ps / us, timer = p.timer_ps / us;
  uint64_t alpha_due = 0, rate_due = 0;
  double bytes = 0;
  drift d;
  auto step = [&](rp_event e) {
    switch (e) {
      case rp_event::cnp:
        f.on_cnp(cf);
        break;
      case rp_event::alpha_timer:
        f.on_alpha_timer(cf);
        break;
      case rp_event::rate_timer:
        f.on_rate_timer(cf);
        break;
      default:
        f.on_bytes(cf, cf.byte_counter);
    }
    x = dcqcn_rp_reference(cx, e, x).ctx;
    d.rc = std::max(d.rc, std::abs(x.rc / double(rp_widths::line) - f.rc() / line));
    d.rt = std::max(d.rt, std::abs(x.rt / double(rp_widths::line) - f.rt() / line));
    d.alpha = std::max(d.alpha, std::abs(x.alpha / 65536.0 - f.alpha()));
  };
  for (uint64_t t = 0; t < 6000; ++t) {
    if (t < 1000 && t % 50 == 0) {
      step(rp_event::cnp);
      alpha_due = t + tau;
      rate_due = t + timer;
      bytes = 0;
    }
    if (alpha_due && t >= alpha_due) {
      step(rp_event::alpha_timer);
      alpha_due += tau;
    }
    if (rate_due && t >= rate_due) {
      step(rp_event::rate_timer);
      rate_due += timer;
    }
    bytes += f.rc() * 1e-6 / 8;
    if (cf.byte_counter && bytes >= cf.byte_counter) {
      bytes -= cf.byte_counter;
      step(rp_event::bytes);
    }
  }
  return d;
}
}  // namespace

TEST(RtlDcqcnRp, FixedPointStaysCloseToTheFloatingPointModel) {
  // The same events: the arithmetic alone. docs/rtl.md reports these numbers.
  for (const dcqcn_profile* p : {&dcqcn_paper, &dcqcn_connectx, &dcqcn_hpcc_sim}) {
    const drift d = open_loop_drift(*p, 40e9);
    std::cout << p->name << ": largest |rc| difference " << d.rc * 1e6 << " ppm of line rate, |rt| " << d.rt * 1e6
              << " ppm, |alpha| " << d.alpha << '\n';
    EXPECT_LT(d.rc, 2e-3) << p->name;
    EXPECT_LT(d.rt, 2e-3) << p->name;
    EXPECT_LT(d.alpha, 5e-3) << p->name;
  }
}
