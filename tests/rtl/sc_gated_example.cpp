// The --sc variant of the DCQCN reaction-point block, as an example and a measurement (docs/rtl.md,
// "A --sc model on a gated clock"): the Verilated SystemC module driven by a clock that toggles
// only while a transaction is pending (a thread writing clk, no sc_clock), every answer checked
// against the C++ reference; then the same module under a free-running sc_clock, left idle, for
// the cost of a clock that never stops. Not a policy: fabric runs use the --cc block.
//   rtl_sc_gated gated TRANSACTIONS   one transaction per simulated microsecond, clocked while busy
//   rtl_sc_gated free CYCLES          an idle block on a 1 GHz sc_clock for CYCLES cycles
#include "Vdcqcn_rp_sc.h"
// (Verilator's headers first: they include SystemC.)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "models/rtl/dcqcn_rp_reference.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr double period_ns = 1.0;

sc_dt::sc_bv<76> to_bits(const rp_context& x) {
  const rp_context::packed p = x.pack();
  sc_dt::sc_bv<76> b;
  b.range(31, 0) = p[0];
  b.range(63, 32) = p[1];
  b.range(75, 64) = p[2];
  return b;
}

rp_context from_bits(const sc_dt::sc_bv<76>& b) {
  return rp_context::unpack(
      {b.range(31, 0).to_uint(), b.range(63, 32).to_uint(), static_cast<uint32_t>(b.range(75, 64).to_uint())});
}

// The block with its signals, clocked by `clock` (a free-running sc_clock), or else by whoever
// writes `clk`.
struct bench : sc_core::sc_module {
  Vdcqcn_rp_sc rp{"rp"};
  sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"}, start{"start"}, take{"take"}, valid{"valid"};
  sc_core::sc_signal<uint32_t> event_kind{"event_kind"}, rate{"rate"}, g{"g"}, rai{"rai"}, rhai{"rhai"},
      min_rate{"min_rate"}, fast_recovery{"fast_recovery"}, rules{"rules"};
  sc_core::sc_signal<sc_dt::sc_bv<76>> ctx_in{"ctx_in"}, ctx_out{"ctx_out"};

  explicit bench(sc_core::sc_module_name n, sc_core::sc_clock* clock = nullptr) : sc_module(n) {
    if (clock)
      rp.clk(*clock);
    else
      rp.clk(clk);
    rp.rst(rst);
    rp.start(start);
    rp.take(take);
    rp.valid(valid);
    rp.event_kind(event_kind);
    rp.rate(rate);
    rp.g(g);
    rp.rai(rai);
    rp.rhai(rhai);
    rp.min_rate(min_rate);
    rp.fast_recovery(fast_recovery);
    rp.rules(rules);
    rp.ctx_in(ctx_in);
    rp.ctx_out(ctx_out);
  }
  void configure(const rp_block_config& c) {
    g = c.g;
    rai = c.rai;
    rhai = c.rhai;
    min_rate = c.min_rate;
    fast_recovery = c.fast_recovery;
    rules = c.rules & 0x3f;
  }
};

// The gated clock: a thread that toggles clk only while a request waits for valid.
struct gated_driver : sc_core::sc_module {
  bench& b;
  uint64_t transactions, done = 0, cycles = 0, mismatches = 0;
  double wall_s = 0;
  SC_HAS_PROCESS(gated_driver);
  gated_driver(sc_core::sc_module_name n, bench& bb, uint64_t t) : sc_module(n), b(bb), transactions(t) {
    SC_THREAD(run);
  }
  void edge() {
    b.clk = true;
    wait(sc_time(period_ns / 2, SC_NS));
    b.clk = false;
    wait(sc_time(period_ns / 2, SC_NS));
  }
  void run() {
    rp_block_config c;  // the paper's profile at 40 Gb/s
    c.g = 256;
    c.rai = 1049;
    c.rhai = 5243;
    c.min_rate = 2622;
    c.fast_recovery = 5;
    c.rules = 0x01;
    b.configure(c);
    b.rst = true;
    edge();
    edge();
    b.rst = false;
    std::mt19937_64 rng(1);
    rp_context x;
    x.alpha = 65535;
    const auto t0 = std::chrono::steady_clock::now();
    for (; done < transactions; ++done) {
      const auto e = static_cast<rp_event>(rng() % 6);
      b.event_kind = static_cast<uint32_t>(e);
      b.ctx_in = to_bits(x);
      b.start = true;
      b.take = done > 0;
      uint32_t n = 0;
      do {
        edge();
        b.start = false;
        b.take = false;
        ++n;
      } while (!b.valid.read());
      const rp_context out = from_bits(b.ctx_out.read());
      const rp_answer ref = dcqcn_rp_reference(c, e, x);
      if (!(ref == rp_answer{out, n})) ++mismatches;
      cycles += n;
      x = out;
      // Idle until the next transaction: no clock. (A model of a fabric waits here in model time.)
      wait(sc_time(1, sc_core::SC_US));
    }
    wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sc_core::sc_stop();
  }
};
}  // namespace

int sc_main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "gated";
  const uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  if (mode == "free") {
    sc_core::sc_clock clock("clock", sc_time(period_ns, SC_NS));
    bench idle("idle", &clock);
    const auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start(sc_time(static_cast<double>(n) * period_ns, SC_NS));
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("free-running sc_clock, idle block: %llu cycles in %.3f s: %.1f ns of wall time per cycle\n",
                static_cast<unsigned long long>(n), wall, wall * 1e9 / static_cast<double>(n));
    return 0;
  }
  bench gated("gated");
  gated_driver driver("driver", gated, n);
  sc_core::sc_start();
  std::printf(
      "gated clock: %llu transactions (%llu cycles) in %.3f s: %.1f ns of wall time per transaction; %llu "
      "mismatches\n",
      static_cast<unsigned long long>(driver.done), static_cast<unsigned long long>(driver.cycles), driver.wall_s,
      driver.wall_s * 1e9 / static_cast<double>(n), static_cast<unsigned long long>(driver.mismatches));
  return driver.mismatches == 0 && driver.done == n ? 0 : 1;
}
