// TIMELY end to end: the receiver's ACKs travel back as real frames and give the sender's
// reaction point its RTT samples (exactly, on a bare link), and on the paper's 10 Gb/s dumbbell
// (scenarios/dumbbell-timely.yaml) the rate law holds the RTT up to T_low and far below T_high.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/harness.h"

using namespace sluice;

using test::counter;

TEST(TimelySystem, TheRttOfAnAckedFrameIsPropagationBothWaysPlusTheAcksSerialization) {
  // a -> b over one 40 Gb/s, 1 us link; 16 001 B in 1000-B frames (header 0): frames 1..16 end
  // at 16 000 (one ACK for the 16 KB segment), frame 17 (1 B, padded to 64 B) ends the flow (a
  // second ACK). The 16th frame's RTT: last bit at b 0.2 us + 1 us after its first bit; b's ACK
  // (70 B: 14 ns) at once; 1 us back: 2.214 us after the send, less the frame's 0.2 us of
  // serialization: 2.014 us. The second ACK arrives within min_rtt (20 us) of that update, so
  // it is skipped: one rate update.
  auto sim = test::make_sim(
      test::two_nics("{kind: finite, src: a, dst: b, size: 16001B, priority: 3}", "run: {until: 100us}\n"),
      {{"b.np", "timely"}, {"a.rp", "timely"}});
  sim->run();
  nlohmann::json s = sim->summary();
  EXPECT_EQ(counter(s, "b.ack_sent"), 2);
  EXPECT_EQ(counter(s, "a.ack_received"), 2);
  EXPECT_EQ(counter(s, "a.timely.rtt_samples"), 1);
  EXPECT_NEAR(counter(s, "a.timely.last_rtt"), 2.014, 1e-6);  // us
  EXPECT_EQ(counter(s, "a.feedback_unmatched"), 0);
}

TEST(TimelySystem, DumbbellRttReachesTlowInSteadyStateAndStaysFarBelowThigh) {
  run_options o;
  auto sim = std::make_unique<simulation>(load_scenario_file(test::scenario_path("dumbbell-timely.yaml")), o);
  sim->run();
  nlohmann::json s = sim->summary();
  // Base RTT (no queue): data 1000 B = 0.8 us per hop x 3, 1 us propagation x 3, two 500 ns
  // pipelines; ACK 70 B = 0.056 us x 3, 3 us, 1 us; less the data frame's 0.8 us:
  // 2.4 + 3 + 1 + 0.168 + 3 + 1 - 0.8 = 9.768 us. Only the bottleneck (sw0.port4) queues, so
  // RTT = 9.768 us + Q x 8 / 10 Gb/s.
  const double base_us = 9.768, bytes_per_us = 10e9 / 8 / 1e6, t_low = 50;
  const series& q = sim->samples().queue_depth;
  int col = -1;
  for (std::size_t c = 0; c < q.columns.size(); ++c)
    if (q.columns[c] == "sw0.port4.p3") col = static_cast<int>(c);
  ASSERT_GE(col, 0);
  // Steady state from 40 ms (the flows cut deep by the joins climb back by delta per
  // completion until ~38 ms). Lower side: below T_low every completion adds delta, nothing
  // cuts, so the aggregate climbs at delta x C / (16 KB x 8) = 10 Mb/s x 10 Gb/s / 128 kbit =
  // 0.78 Gb/s per ms; from a cut of the aggregate by d (measured: the limits' sum falls from
  // 10.8 to 7.9-8.5 Gb/s, 21-27 %; allow 35 %: 3.5 Gb/s below C) it is back
  // at C within 4.5 ms and fills the (T_low - base) x C = 50 KB to T_low in another
  // sqrt(2 x 402 kbit / 0.78 Gb/s/ms) = 1.0 ms: in every 8 ms window the RTT reaches T_low.
  // Upper side: the first update above T_low sees a rising queue (gradient > 0) and cuts; the
  // queue keeps growing at the excess (<= 0.78 Gb/s after the 1 ms fill) for at most one update
  // interval (16 KB at >= 2 Gb/s: 64 us) plus one RTT (60 us): <= 12 KB, 10 us more. So the RTT
  // stays below T_low + 25 us (margin x 2.5), an order of magnitude below T_high.
  double windows[5] = {0, 0, 0, 0, 0}, peak = 0;
  for (std::size_t r = 0; r < q.rows.size(); ++r) {
    const double t = q.times_us[r];
    if (t <= 40000) continue;
    const double rtt = base_us + q.rows[r][col] / bytes_per_us;
    double& w = windows[std::min(4, static_cast<int>((t - 40000) / 8000))];
    w = std::max(w, rtt);
    peak = std::max(peak, rtt);
  }
  for (double w : windows) EXPECT_GE(w, t_low);
  EXPECT_LT(peak, t_low + 25);
  // The senders' own samples, over the whole run (joins included): none above T_high (500 us).
  for (const char* h : {"h0", "h1", "h2", "h3"}) {
    EXPECT_GT(counter(s, std::string(h) + ".timely.rtt_samples"), 400) << h;
    EXPECT_EQ(counter(s, std::string(h) + ".timely.rtt_above_t_high"), 0) << h;
  }
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_EQ(s["totals"]["pause_frames"], 0);  // T_low x C = 62 KB: far below the PFC thresholds
}

TEST(TimelySystem, CcTimelyPutsTheNpAtReceiversAndTheRpAtSendersAndNoCp) {
  test::command_result r =
      test::run_cli("params " + test::scenario_path("dumbbell.yaml") + " --cc timely --match '*.np' ");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("r0.np"), std::string::npos);
  EXPECT_NE(r.output.find("timely"), std::string::npos);
  test::command_result bad = test::run_cli("run " + test::scenario_path("dumbbell.yaml") +
                                           " --cc timely --set 'h0.timely.t_low=600us' --until 10us -q");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.output, "sluice: error: h0.timely.t_low: 600us is not below h0.timely.t_high (500us)\n");
}

TEST(TimelySystem, ANewFlowStartsAtTheLineRateOverOnePlusTheSendersActiveFlows) {
  // a sends three finite flows to b over one link of C = 40 or 10 Gb/s with 100 us of delay (no
  // ACK is back before 200 us), starting at 0, 20 and 40 us. The paper's start: C/(N+1) with N
  // the flows already active at the sender: C, C/2 and C/3, limits set before each first frame.
  const std::string dir = testing::TempDir() + "timely_start_" + std::to_string(getpid());
  // One simulation per process: each run through the CLI; the last row of flow_rate.csv.
  auto rates_at_100us = [&](int gbps, const std::string& start) {
    const std::string rate = std::to_string(gbps) + "Gbps", run = dir + "/" + rate + "-" + start;
    std::filesystem::create_directories(run);
    std::ofstream(run + "/s.yaml") << "platform:\n  kind: custom\n  switches: []\n  nics: [a, b]\n"
                                   << "  links: [{a: a, b: b, rate: " << rate << ", delay: 100us}]\ntraffic:\n"
                                   << "  - {kind: finite, src: a, dst: b, size: 10MB, priority: 3, cc: timely}\n"
                                   << "  - {kind: finite, src: a, dst: b, size: 10MB, priority: 3, cc: timely, "
                                      "start: 20us}\n"
                                   << "  - {kind: finite, src: a, dst: b, size: 10MB, priority: 3, cc: timely, "
                                      "start: 40us}\n"
                                   << "run: {until: 100us, sample_period: 10us}\n";
    const test::command_result r =
        test::run_cli("run " + run + "/s.yaml -q --out " + run + " --set a.timely.start=" + start, "/dev/null");
    EXPECT_EQ(r.status, 0) << r.output;
    std::ifstream csv(run + "/flow_rate.csv");
    std::string line, last;
    std::getline(csv, line);
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 6) << line;  // time, each flow and its target
    while (std::getline(csv, line)) last = line;
    std::vector<double> v;
    std::stringstream ls(last);
    for (std::string f; std::getline(ls, f, ',');) v.push_back(std::stod(f));
    return v.size() == 7 ? std::vector<double>{v[1], v[3], v[5]} : std::vector<double>{};
  };
  for (int gbps : {40, 10}) {
    const double c = gbps * 1e9;
    const std::vector<double> fair = rates_at_100us(gbps, "fair-share");
    ASSERT_EQ(fair.size(), 3u) << gbps << " Gb/s";
    EXPECT_DOUBLE_EQ(fair[0], c);
    EXPECT_DOUBLE_EQ(fair[1], c / 2);
    EXPECT_NEAR(fair[2], c / 3, 1e-5 * c);             // flow_rate.csv keeps 6 significant digits
    EXPECT_EQ(rates_at_100us(gbps, "profile"), fair);  // the paper profile starts at the fair share
    // line-rate: unlimited until the first ACK: each flow shows its pace, the line rate.
    for (double rate : rates_at_100us(gbps, "line-rate")) EXPECT_DOUBLE_EQ(rate, c);
  }
}
