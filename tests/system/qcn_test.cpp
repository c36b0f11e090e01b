// QCN (IEEE 802.1Qau) on the shipped 4-flow dumbbell: CP "qcn" on the bottleneck's class 3 and RP
// "qcn" at the four senders, chosen through parameters. Four 20 Gb/s flows share the 40 Gb/s
// sw0 -> sw1 link (offered 2x). Without congestion control PFC holds the queue near its pause
// threshold; with QCN the bottleneck queue stays near Qeq (26 KB by default), the link stays busy
// and the senders count the CNMs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
double counter(const nlohmann::json& s, const std::string& name) {
  return s["counters"].contains(name) ? s["counters"][name].get<double>() : 0.0;
}

// Runs the dumbbell for 10 ms with QCN and `extra` overrides; checks the bottleneck queue's mean
// after 1 ms against [0.5, 2] x qeq and that it never empties; returns the summary.
nlohmann::json run_dumbbell(double qeq, std::vector<std::pair<std::string, std::string>> extra) {
  run_options o;
  o.sets = {{"sw0.port*.prio3.cp", "qcn"}, {"h*.rp", "qcn"}};
  o.sets.insert(o.sets.end(), extra.begin(), extra.end());
  o.until = sc_core::sc_time(10, sc_core::SC_MS);
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  sim.run();
  // The bottleneck queue (sw0.port4, class 3) after a 1 ms warm-up (the first CNMs need a
  // 150 KB sample and an RTT; the first overshoot reaches ~130 KB). Bound: mean within
  // [0.5, 2] x Qeq. QCN's feedback is zero at Q = Qeq with a steady queue, and a CNM cuts one
  // flow by at most Gd = 50 % of its rate (an eighth of the aggregate here), which fast recovery
  // restores within 5 byte-counter cycles: the queue swings around Qeq by a few KB, far less
  // than Qeq (measured, seed 1: mean 1.07 x Qeq here, 0.97 x Qeq past the 2.5 KB in the switch pipeline,
  // which the CP regulates; range 23-39 KB; docs/models/qcn.md).
  const series& q = sim.samples().queue_depth;
  int col = -1;
  for (std::size_t c = 0; c < q.columns.size(); ++c)
    if (q.columns[c] == "sw0.port4.p3") col = static_cast<int>(c);
  if (col < 0) {
    ADD_FAILURE() << "no column sw0.port4.p3";
    return sim.summary();
  }
  double sum = 0, n = 0, lowest = 1e18;
  for (std::size_t i = 0; i < q.rows.size(); ++i) {
    if (q.times_us[i] < 1000) continue;
    sum += q.rows[i][col];
    lowest = std::min(lowest, q.rows[i][col]);
    ++n;
  }
  EXPECT_GT(n, 100);
  const double mean = sum / n;
  EXPECT_GE(mean, 0.5 * qeq) << mean;
  EXPECT_LE(mean, 2 * qeq) << mean;
  EXPECT_GT(lowest, 0) << "the queue drained: the link idled";

  EXPECT_GE(test::utilization(sim.summary(), "sw0->sw1"), 0.95);
  return sim.summary();
}
}  // namespace

TEST(Qcn, DumbbellBottleneckQueueStaysNearQeqWithTheLinkBusy) {
  const nlohmann::json s = run_dumbbell(26 * 1024, {});
  EXPECT_EQ(s["totals"]["pause_frames"].get<double>(), 0);  // QCN keeps it below PFC's threshold

  // Every sender was cut; every CNM sent reached its sender, but the few still on the wire.
  const double sent = counter(s, "sw0.port4.prio3.qcn.cnm_sent");
  double received = 0;
  for (const char* h : {"h0", "h1", "h2", "h3"}) {
    const double r = counter(s, std::string(h) + ".cnm_received");
    EXPECT_GT(r, 0) << h;
    received += r;
  }
  EXPECT_GT(sent, 20);
  EXPECT_LE(received, sent);
  EXPECT_GE(received, sent - 4);
  EXPECT_EQ(counter(s, "h0.feedback_unmatched"), 0);
  EXPECT_GT(counter(s, "sw0.port4.prio3.qcn.samples"), sent);
}

// flow_rate.csv's target column is the reaction point's TR: on the dumbbell (four 20 Gb/s flows,
// so TR starts at 20 Gb/s) the first cut of each flow leaves TR above CR, and the column shows it
// (it used to repeat the current rate). TR never exceeds the flow's line rate of 20 Gb/s.
TEST(Qcn, TheFlowRateTargetColumnIsTheReactionPointsTargetRate) {
  run_options o;
  o.sets = {{"sw0.port*.prio3.cp", "qcn"}, {"h*.rp", "qcn"}};
  o.until = sc_core::sc_time(2, sc_core::SC_MS);
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  sim.run();
  const series& r = sim.samples().flow_rate;
  ASSERT_EQ(r.columns.size(), 8u);  // each flow and its target
  for (std::size_t f = 0; f < 4; ++f) {
    EXPECT_EQ(r.columns[2 * f + 1], r.columns[2 * f] + " target");
    bool below = false;
    for (const auto& row : r.rows) {
      below |= row[2 * f] < 0.9 * row[2 * f + 1];
      EXPECT_LE(row[2 * f + 1], 20e9) << r.columns[2 * f];
    }
    EXPECT_TRUE(below) << r.columns[2 * f] << ": the target column never rose above the current rate";
  }
}

TEST(Qcn, TheQueueFollowsALargerQeq) {
  // Qeq 66 KB (the tutorial's larger value); measured mean 1.08 x Qeq (1.04 past the pipeline).
  const nlohmann::json s = run_dumbbell(66000, {{"sw0.port*.prio3.qcn.qeq", "66KB"}});
  EXPECT_EQ(s["totals"]["pause_frames"].get<double>(), 0);
}

TEST(Qcn, AShortRpTimerDrivesIncreaseThroughTheEventQueue) {
  // A 100 us timer (15 ms by default, longer than the run) ends cycles by itself: more cuts are
  // needed, the queue still holds near Qeq (measured mean 1.18 x Qeq, 231 CNMs against 113).
  const nlohmann::json s = run_dumbbell(26 * 1024, {{"h*.qcn.timer", "100us"}});
  EXPECT_GT(counter(s, "sw0.port4.prio3.qcn.cnm_sent"), 150);
}

TEST(Qcn, ParametersAreNamedUnderThePortAndPriorityAndTheNic) {
  const auto r =
      test::run_cli("params " + test::scenario_path("dumbbell.yaml") +
                    " --set 'sw0.port4.prio3.cp=qcn' --set 'h0.rp=qcn' --set 'sw0.port4.prio3.qcn.qeq=40KB'" +
                    " --set 'h0.qcn.r_ai=10Mbps' --match '*qcn*'");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* name :
       {"sw0.port4.prio3.qcn.qeq", "sw0.port4.prio3.qcn.w", "sw0.port4.prio3.qcn.sample_base",
        "sw0.port4.prio3.qcn.sample_jitter", "h0.qcn.gd", "h0.qcn.min_rate", "h0.qcn.bc_limit", "h0.qcn.timer",
        "h0.qcn.fr_threshold", "h0.qcn.r_ai", "h0.qcn.r_hai", "h0.qcn.extra_fast_recovery"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name << "\n" << r.output;
  EXPECT_EQ(r.output.find("h1.qcn"), std::string::npos) << r.output;  // only where chosen
}

namespace {
// The OG hotspot (scenarios/qcn-og-hotspot.yaml) scaled down: the capacity of sw0-sw1 drops from
// 10 to 0.5 Gb/s at 10 ms and returns at 210 ms (the shipped file: 2 s to 4 s). Returns the
// bandwidth recovery time after 210 ms, in ms: until the first 500-us sample in which sw0->sw1
// carried >= 95 % of 10 Gb/s (or the remaining run time, 250 ms, if it never did). Seed 1.
double og_hotspot_recovery_ms(const std::string& sets, const std::string& tag) {
  // One SystemC simulation per process: each run is the sluice binary on a scaled copy of the file.
  std::string yaml = test::slurp(test::scenario_path("qcn-og-hotspot.yaml"));
  for (auto [from, to] : {std::pair<std::string, std::string>{"at: 2s", "at: 10ms"}, {"at: 4s", "at: 210ms"}}) {
    const auto at = yaml.find(from);
    if (at == std::string::npos) {
      ADD_FAILURE() << "no '" << from << "' in qcn-og-hotspot.yaml";
      return 0;
    }
    yaml.replace(at, from.size(), to);
  }
  const std::string dir = testing::TempDir() + "qcn_og_" + tag + "_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/s.yaml") << yaml;
  const test::command_result r =
      test::run_cli("run " + dir + "/s.yaml --until 460ms --seed 1 --out " + dir + "/out " + sets, "/dev/null");
  EXPECT_EQ(r.status, 0) << r.output;
  std::ifstream csv(dir + "/out/link_throughput.csv");
  std::string line;
  std::getline(csv, line);  // header: time_us,<link directions>
  int col = -1, c = 0;
  std::stringstream hs(line);
  for (std::string name; std::getline(hs, name, ','); ++c)
    if (name == "sw0->sw1") col = c;
  if (col < 1) {
    ADD_FAILURE() << "no column sw0->sw1";
    return 0;
  }
  while (std::getline(csv, line)) {
    std::stringstream ls(line);
    std::vector<double> v;
    for (std::string f; std::getline(ls, f, ',');) v.push_back(std::stod(f));
    if (v.size() > static_cast<std::size_t>(col) && v[0] > 210000 && v[col] >= 9.5) return (v[0] - 210000) / 1000;
  }
  return 250;
}
}  // namespace

// The seed's claim (qcn-transient-response): path-based BA (one setting, qcn.path_ba, that switches
// both the congestion point's push-backs and the reaction points' timer: neither alone recovers) with its 5 ms timer
// (with target-rate reduction) recovers the bandwidth an order of magnitude faster than QCN without a timer (the seed's
// "drift timer disabled", which the scenario sets). Baseline: after the restore each source runs at ~0.05 Gb/s and only
// its byte counter ends cycles, 150 KB / 0.05 Gb/s = 24 ms each; five fast-recovery cycles (~120 ms) bring CR only to
// TR ~ the congested rate, then active increase adds 5 Mb/s per cycle. With path_ba: BA = 1 10 ms after the queue
// drains, then the 5 ms timer (2.5 ms past F) drives the one cycle count into hyper-active increase. Measured (seeds
// 1-3, Sluice's rules before issue 26): baseline 316.5, 327.5, 288 ms; target_reduction + path_ba 36.5, 35, 34.5 ms
// (8.3-9.4x); with the standard's rules (target-rate reduction on by default) and the CP reading the queue past the
// pipeline: baseline never within the run (250; 672.5, 469, 666.5 ms in a 2 s run), improved 31, 38, 34.5 ms (>= 6.6x);
// the 6 s scenario gives 517.5 against 37 ms. Bound 5x: the brief's, with margin below the measured ratios.
TEST(Qcn, OgHotspotTargetReductionAndPathBaRecoverAtLeastFiveTimesFaster) {
  const double base = og_hotspot_recovery_ms("", "base");
  const double improved = og_hotspot_recovery_ms("--set 'h*.qcn.target_reduction=true' --set qcn.path_ba=true", "trba");
  EXPECT_GT(improved, 0);
  EXPECT_LT(improved, 60) << "path_ba should recover within tens of ms";
  EXPECT_GE(base, 5 * improved) << "baseline " << base << " ms, improved " << improved << " ms";
}

// SONAR (seed qcn-transient-response: "350+ msecs down to 38 msecs" at RTT 500 us), on the same
// scaled OG hotspot. After the restore the queue drains; 10 ms later BA = 1 at the CP, so the next
// probe (every sonar_wait = 5 ms after a cut or an echo) draws no echo; 1 ms later (sonar_echo_wait)
// the RL enters short fuse: hyper-active increase on its 1 ms ping timer and its byte counter. So
// recovery takes about 10 + 5 + 1 ms plus a few HAI cycles, against the baseline's > 250 ms (the
// run's end: five 24-ms byte-counter cycles of fast recovery, then 5 Mb/s steps). Measured (seeds
// 1-3): 18, 17, 19 ms, but not by that sequence: during the drop probes arriving at the full lossy
// buffer are dropped unseen, draw no echo and send their RLs into SF, so the sources stay at 3-7 Gb/s
// and the buffer overflows the whole 200 ms (docs/models/qcn.md, SONAR). Bound 5x, as for path_ba.
TEST(Qcn, OgHotspotSonarRecoversAtLeastFiveTimesFaster) {
  const double base = og_hotspot_recovery_ms("", "sonar_base");
  const double sonar = og_hotspot_recovery_ms("--set qcn.sonar=true", "sonar");
  EXPECT_GT(sonar, 0);
  EXPECT_LT(sonar, 50) << "sonar should recover within tens of ms";
  EXPECT_GE(base, 5 * sonar) << "baseline " << base << " ms, sonar " << sonar << " ms";
}

// The test above passes by the overload, not by SONAR's sequence. With a buffer that absorbs the
// drop (20 MB at sw0: no probe is lost), SONAR's sources come down like the baseline's and recover
// by the intended sequence: echoes while the queue holds, none once BA = 1, then short fuse.
// Measured (seed 1): 22 ms with 498 echoes, no drop; the baseline never within the run (250 ms).
TEST(Qcn, OgHotspotSonarRecoversByItsSequenceWhenNoProbeIsLost) {
  const std::string big = " --set sw0.mmu.buffer=20MB";
  const double base = og_hotspot_recovery_ms(big, "sonar_big_base");
  const double sonar = og_hotspot_recovery_ms(big + " --set qcn.sonar=true", "sonar_big");
  EXPECT_GT(sonar, 0);
  EXPECT_LT(sonar, 50);
  EXPECT_GE(base, 5 * sonar) << "baseline " << base << " ms, sonar " << sonar << " ms";
  const nlohmann::json s = nlohmann::json::parse(
      test::slurp(testing::TempDir() + "qcn_og_sonar_big_" + std::to_string(getpid()) + "/out/summary.json"));
  EXPECT_EQ(s["totals"]["drops"], 0);
  double echoes = 0;
  for (const auto& [name, v] : s["counters"].items())
    if (name.size() > 10 && name.compare(name.size() - 10, 10, ".echo_sent") == 0) echoes += v.get<double>();
  EXPECT_GE(echoes, 100) << "the CP echoed the probes while the queue held";
}

// `--cc qcn` alone (no per-port choices) puts the CP on every switch queue the traffic uses and
// the RP at the senders; QCN has no notification point. The CNMs are counted where they arrive.
TEST(Qcn, CcQcnChoosesTheCpOnTheTrafficsQueuesAndTheRpAtTheSenders) {
  run_options o;
  o.cc = "qcn";
  o.until = sc_core::sc_time(3, sc_core::SC_MS);
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  for (auto& n : sim.fabric_model().nics) {
    EXPECT_EQ(n->rp(), n->flows_sent().empty() ? "none" : "qcn") << n->name();
    EXPECT_EQ(n->np(), "none") << n->name();
  }
  EXPECT_EQ(sim.fabric_model().switches[0]->ports[4]->cp[3](), "qcn");
  sim.run();
  const nlohmann::json s = sim.summary();
  EXPECT_GT(s["totals"]["cnm_frames"].get<double>(), 0);
  EXPECT_EQ(s["totals"]["cnp_frames"].get<double>(), 0);
}
