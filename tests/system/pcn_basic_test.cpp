// The PCN paper's section 3 congestion tree under PFC alone (scenarios/pcn-basic.yaml): F0 and
// F1 in steady state first, the bursts from 1 ms, static XOFF threshold 512 KB.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/harness.h"

using namespace sluice;
using test::mean_of;

namespace {
// Smallest and largest sample of a column in (from_us, to_us].
std::pair<double, double> range_of(const series& s, const std::string& column, double from_us, double to_us) {
  auto col = std::find(s.columns.begin(), s.columns.end(), column) - s.columns.begin();
  double lo = 1e300, hi = -1e300;
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.times_us[r] > from_us && s.times_us[r] <= to_us) {
      lo = std::min(lo, s.rows[r][col]);
      hi = std::max(hi, s.rows[r][col]);
    }
  return {lo, hi};
}

constexpr double rate = 40e9;   // every link
constexpr double delay_us = 5;  // every link
constexpr double xoff = 512e3;  // static XOFF threshold per ingress priority group
constexpr double burst_start_us = 1000;
}  // namespace

TEST(PcnBasic, SteadyStateThenVictimFlowLosesThroughputWhileBurstsLast) {
  simulation sim(load_scenario_file(test::scenario_path("pcn-basic.yaml")), {});
  sim.run();
  nlohmann::json s = sim.summary();
  const sampler& samples = sim.samples();
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_EQ(s["totals"]["flows_completed"], 224);

  // Steady state before the bursts. F0 and F1 each offer 40 Gb/s into sw0->sw1: fair share
  // 20 Gb/s each. sw0's queue towards sw1 grows at 40 Gb/s until both ingress groups reach XOFF
  // (2 x 512 KB / 5 GB/s = 205 us); from 300 us it holds the two groups' XOFF worth, and sw0
  // pauses h0 and h1 half the time (1 - 20/40).
  const double steady_from = 300;
  EXPECT_NEAR(mean_of(samples.flow_throughput, "h0->r0", steady_from, burst_start_us), 20.0, 0.5);
  EXPECT_NEAR(mean_of(samples.flow_throughput, "h1->r1", steady_from, burst_start_us), 20.0, 0.5);
  EXPECT_NEAR(mean_of(samples.paused_fraction, "h0.port0.p3", steady_from, burst_start_us), 0.5, 0.1);
  // sw0's port towards sw1 is port 2 (links h0-sw0, h1-sw0, sw0-sw1). At most 2 x (XOFF +
  // headroom 52 KiB); at least 2 x (XOFF - xon_offset 3 KB) less what drains in the 2 x 5 us it
  // takes a resume to refill the queue (2 x 10 us x 40 Gb/s = 100 KB).
  auto [q_lo, q_hi] = range_of(samples.queue_depth, "sw0.port2.p3", steady_from, burst_start_us);
  EXPECT_LE(q_hi, 2 * (xoff + 52 * 1024));
  EXPECT_GE(q_lo, 2 * (xoff - 3e3) - 2 * (2 * delay_us * 1e-6) * rate / 8);
  // Nobody pauses sw0 before the bursts: the tree is not there yet.
  EXPECT_EQ(mean_of(samples.paused_fraction, "sw0.port2.p3", 0, burst_start_us), 0.0);

  // 14 x 16 bursts of 64 KB = 14.3 MB into r1 take at least 14.3e6 x 8 / 40e9 = 2.87 ms.
  const double drain_us = 14.0 * 16 * 64000 * 8 / rate * 1e6;
  const double burst_end_us = burst_start_us + drain_us;
  // F0 never crosses the congested sw1->r1 port, yet while the bursts last it is paused
  // through sw0 and collapses; afterwards it is back at its 20 Gb/s.
  const double during = mean_of(samples.flow_throughput, "h0->r0", burst_start_us + 200, burst_end_us - 200);
  EXPECT_LT(during, 0.5 * 20.0) << "victim kept " << during << " Gb/s";
  EXPECT_NEAR(mean_of(samples.flow_throughput, "h0->r0", burst_end_us + 1000, 7000), 20.0, 2.0);
  // The victim's NIC is paused most of the burst, far more than in the steady state.
  EXPECT_GT(mean_of(samples.paused_fraction, "h0.port0.p3", burst_start_us + 200, burst_end_us - 200), 0.8);
  // The tree: sw1 pauses sw0 (its port towards sw1), sw0 pauses h0 and h1.
  EXPECT_GT(mean_of(samples.paused_fraction, "sw0.port2.p3", burst_start_us + 200, burst_end_us - 200), 0.5);
  EXPECT_GT(test::find_port(s, "sw1", "sw0", 3)["pause_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "sw0", "sw1", 3)["pause_received"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "sw0", "h0", 3)["pause_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(test::find_port(s, "h0", "sw0", 3)["pause_received"].get<uint64_t>(), 0u);
  // The tree's extent: sw0's port towards sw1, h0 and h1, and the 14 burst senders on sw1; it
  // forms after the bursts start.
  EXPECT_GE(s["congestion_tree"]["max_ports_paused"].get<uint64_t>(), 3u);
  EXPECT_LE(s["congestion_tree"]["max_ports_paused"].get<uint64_t>(), 17u);
  EXPECT_GT(s["congestion_tree"]["max_ports_paused_at_us"].get<double>(), burst_start_us);
}

// With end-to-end congestion control on, pcn-basic sends fewer PAUSE frames than with PFC alone:
// the schemes cut the burst senders' rates, so fewer ingress groups at sw1 (and then sw0) cross
// XOFF. Each run is its own process (SystemC elaborates once per process). Measured, seed 1:
// PFC alone 772 PFC frames; DCQCN 406 (7 558 CNPs); QCN 306 (769 CNMs).
TEST(PcnBasic, CongestionControlSendsFewerPauseFramesThanPfcAlone) {
  auto run = [](const std::string& cc) {
    const std::string dir = ::testing::TempDir() + "/pcn-cc-" + std::to_string(getpid()) + "-" + cc;
    test::command_result r =
        test::run_cli("run " + test::scenario_path("pcn-basic.yaml") + " --cc " + cc + " -q --out " + dir, "/dev/null");
    EXPECT_EQ(r.status, 0) << cc << ": " << r.output;
    std::ifstream in(dir + "/summary.json");
    return nlohmann::json::parse(in)["totals"];
  };
  const nlohmann::json pfc = run("none"), dcqcn = run("dcqcn"), qcn = run("qcn");
  EXPECT_GT(pfc["pause_frames"].get<double>(), 0);
  EXPECT_LT(dcqcn["pause_frames"].get<double>(), pfc["pause_frames"].get<double>());
  EXPECT_LT(qcn["pause_frames"].get<double>(), pfc["pause_frames"].get<double>());
  EXPECT_GT(dcqcn["cnp_frames"].get<double>(), 0);  // the feedback really travelled
  EXPECT_GT(qcn["cnm_frames"].get<double>(), 0);
  EXPECT_EQ(dcqcn["drops"].get<double>(), 0);
  EXPECT_EQ(qcn["drops"].get<double>(), 0);
}
