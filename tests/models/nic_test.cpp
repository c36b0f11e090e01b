// NIC flow sources: constant-rate pacing, on/off bursts, the rate limiter, finite flows.
#include <gtest/gtest.h>

#include "tests/support/harness.h"
#include "tests/support/scripted_limiter.h"

using namespace sluice;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {
std::string two_nics(const std::string& flow) { return test::two_nics(flow, "run: {until: 1ms}\n"); }
double delivered_gbps(simulation& sim, double seconds) {
  return static_cast<double>(sim.fabric_model().flows[0].stats.rx_bytes) * 8 / seconds / 1e9;
}
}  // namespace

TEST(Nic, ConstantFlowIsPacedAtItsRate) {
  auto sim = test::make_sim(two_nics("{kind: constant, src: a, dst: b, rate: 10Gbps}"));
  sim->run();
  // 1000-byte frames every 800 ns from t = 0; those sent by 999 us have arrived by 1 ms.
  EXPECT_EQ(sim->fabric_model().flows[0].stats.rx_frames, 1249u);
  EXPECT_NEAR(delivered_gbps(*sim, 1e-3), 10.0, 0.02);
}

TEST(Nic, OnOffFlowSendsOnlyDuringOnPeriods) {
  // 40 Gb/s for 10 us out of every 40 us: a quarter of the line rate.
  auto sim = test::make_sim(two_nics("{kind: onoff, src: a, dst: b, rate: 40Gbps, on: 10us, off: 30us}"));
  sim->run();
  EXPECT_NEAR(delivered_gbps(*sim, 1e-3), 10.0, 0.3);
}

TEST(Nic, RateLimiterCapsTheFlow) {
  auto sim = test::make_sim(two_nics("{kind: finite, src: a, dst: b, size: 100MB}"));
  sim->fabric_model().nics[0]->limiter(0).set_rate(data_rate{5e9});
  sim->run();
  EXPECT_NEAR(delivered_gbps(*sim, 1e-3), 5.0, 0.02);
}

TEST(Nic, FiniteFlowStartsOnTimeAndRecordsItsCompletion) {
  auto sim = test::make_sim(two_nics("{kind: finite, src: a, dst: b, size: 10KB, start: 100us}"));
  sim->run();
  const flow& f = sim->fabric_model().flows[0];
  ASSERT_TRUE(f.stats.completed());
  // 10 frames of 1000 B at 40 Gb/s (200 ns each) from 100 us, plus 1 us propagation.
  EXPECT_EQ(from_ps(f.stats.completed_ps), sc_time(103, SC_US));
  EXPECT_EQ(f.stats.rx_bytes, 10000u);
}

TEST(Nic, HeaderBytesCountOnTheWireButNotInTheFlow) {
  auto sim = test::make_sim(two_nics("{kind: finite, src: a, dst: b, size: 10KB}"), {{"a.header", "62B"}});
  sim->run();
  EXPECT_EQ(sim->fabric_model().links[0].model->ab.bytes(), 10u * 1062);
  EXPECT_EQ(sim->fabric_model().flows[0].stats.rx_bytes, 10000u);
}

namespace {
// Turns a flow's limiter down at a given time, as congestion control would.
struct limiter_driver : sc_core::sc_module {
  rate_limiter_if& limiter;
  limiter_driver(sc_core::sc_module_name n, rate_limiter_if& l) : sc_module(n), limiter(l) { SC_THREAD(run); }
  SC_HAS_PROCESS(limiter_driver);
  void run() {
    wait(sc_time(500, SC_US));
    limiter.set_rate(data_rate{5e9});
  }
};
}  // namespace

TEST(Nic, ALimiterStaysValidAfterOtherFlowsFinish) {
  // Flow 0 (10 KB) finishes within microseconds; flow 1's limiter, taken before the run, is
  // turned down to 5 Gb/s at 500 us: over the second half it carries 5 Gb/s.
  auto sim = test::make_sim(
      two_nics("{kind: finite, src: a, dst: b, size: 10KB}, {kind: finite, src: a, dst: b, size: 100MB}"));
  limiter_driver d("driver", sim->fabric_model().nics[0]->limiter(1));
  sim->run();
  const series& s = sim->samples().flow_throughput;
  double sum = 0;
  int n = 0;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.times_us[r] > 510) {
      sum += s.rows[r][1];
      ++n;
    }
  EXPECT_TRUE(sim->fabric_model().flows[0].stats.completed());
  EXPECT_NEAR(sum / n, 5.0, 0.1);
}

namespace {
// A limiter that lets a frame go only every 1 us, whatever its size: 1000-byte frames at 8 Gb/s.
struct one_per_microsecond : test::scripted_limiter {
  void on_send(uint64_t now_ps, uint64_t bytes, data_rate r) override {
    scripted_limiter::on_send(now_ps, bytes, r);
    next = now_ps + 1000000;
  }
};
}  // namespace

TEST(Nic, RateLimiterCanBeReplaced) {
  auto sim = test::make_sim(two_nics("{kind: finite, src: a, dst: b, size: 100MB}"));
  one_per_microsecond lim;
  sim->fabric_model().nics[0]->bind_limiter(0, lim);
  EXPECT_EQ(&sim->fabric_model().nics[0]->limiter(0), &lim);
  sim->run();
  EXPECT_EQ(lim.sends, 1000);  // frames at 0, 1, ..., 999 us within 1 ms
  EXPECT_NEAR(delivered_gbps(*sim, 1e-3), 8.0, 0.02);
}
