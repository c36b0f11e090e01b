// TCD's detector end to end on CEE (PFC): a paused victim port against the root, the ON periods of
// a paused port against the ON-OFF model, and TCD-aware DCQCN reacting differently to UE and CE.
// Bounds derived in the comments and in docs/models/tcd.md ("Validation").
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "models/cc/tcd/tcd_cp.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
// Share of the samples in (from_us, to_us] where column `name` equals `value`.
double share_at(const series& s, const std::string& name, double value, double from_us, double to_us) {
  const auto c = static_cast<std::size_t>(std::find(s.columns.begin(), s.columns.end(), name) - s.columns.begin());
  EXPECT_LT(c, s.columns.size()) << name;
  int hit = 0, n = 0;
  for (std::size_t r = 0; r < s.rows.size() && c < s.columns.size(); ++r)
    if (s.times_us[r] > from_us && s.times_us[r] <= to_us) {
      ++n;
      hit += s.rows[r][c] == value;
    }
  return n ? static_cast<double>(hit) / n : 0.0;
}
double counter(const nlohmann::json& summary, const std::string& name) {
  const nlohmann::json& c = summary["counters"];
  return c.contains(name) ? c[name].get<double>() : 0.0;
}
// Runs the victim scenario and checks the states of sw0's port towards sw1 (the victim) and sw1's
// port towards r1 (the root), columns "sw0.port2.p3" and "sw1.port16.p3": non-congestion before
// the bursts (F0 + F1 = 30 Gb/s < 40 Gb/s); while they last, the victim undetermined from
// victim_from_us and the root congestion from root_from_us to 3.8 ms, in at least 95 % of the
// 20 us samples; both back to non-congestion at the end; the victim never congestion, the root
// never undetermined; max(Ton) as expected. Returns the summary.
nlohmann::json expect_victim_undetermined_and_root_congestion(const std::string& scenario, double victim_from_us,
                                                              double root_from_us, double max_ton_ns) {
  simulation sim(load_scenario_file(test::scenario_path(scenario)), {});
  sim.run();
  const series& st = sim.samples().cp_state;
  const double undetermined = 1, congestion = 2, non_congestion = 0;
  EXPECT_EQ(share_at(st, "sw0.port2.p3", non_congestion, 0, 1000), 1.0);
  EXPECT_EQ(share_at(st, "sw1.port16.p3", non_congestion, 0, 1000), 1.0);
  EXPECT_GE(share_at(st, "sw0.port2.p3", undetermined, victim_from_us, 3800), 0.95);
  EXPECT_GE(share_at(st, "sw1.port16.p3", congestion, root_from_us, 3800), 0.95);
  EXPECT_EQ(share_at(st, "sw0.port2.p3", non_congestion, st.times_us.back() - 1, st.times_us.back()), 1.0);
  EXPECT_EQ(share_at(st, "sw1.port16.p3", non_congestion, st.times_us.back() - 1, st.times_us.back()), 1.0);
  nlohmann::json s = sim.summary();
  EXPECT_EQ(counter(s, "sw0.port2.prio3.tcd.to_congestion"), 0);
  EXPECT_GE(counter(s, "sw0.port2.prio3.tcd.to_undetermined"), 1);
  EXPECT_GT(counter(s, "sw0.port2.prio3.tcd.ue_marked"), 0);
  EXPECT_EQ(counter(s, "sw1.port16.prio3.tcd.to_undetermined"), 0);
  EXPECT_GE(counter(s, "sw1.port16.prio3.tcd.to_congestion"), 1);
  EXPECT_NEAR(counter(s, "sw0.port2.prio3.tcd.max_ton"), max_ton_ns, 0.1);
  return s;
}
}  // namespace

// scenarios/tcd-victim.yaml: PFC alone, F0 and F1 at 15 Gb/s, bursts to r1 from 1 ms. The bursts
// (14 x 16 x 64 KB = 14.3 MB at 40 Gb/s) last at least 2.87 ms. sw1 pauses sw0's port towards it
// (port 2) on and off: its ON periods are tens of us, far below max(Ton) = 122.1 us (gap 3000 B,
// tau 10.0128 us, 40 Gb/s, eps 0.05: TcdMaxTon.WorkedExampleOfTheReference), so it is undetermined;
// sw1's port towards r1 (port 16) is never paused and its queue grows: congestion.
TEST(TcdSystem, PausedVictimPortIsUndeterminedAndTheRootPortIsCongestion) {
  // The tree has formed by 1.5 ms (victim) and 1.25 ms (root).
  const nlohmann::json s = expect_victim_undetermined_and_root_congestion("tcd-victim.yaml", 1500, 1250, 122140.8);
  EXPECT_LT(counter(s, "sw0.port2.prio3.tcd.on_mean"), 122140.8);
  EXPECT_EQ(s["totals"]["drops"], 0);
}

namespace {
// tcd-victim at another link rate (F0 and F1 at 15/40 of it, as at 40 Gb/s). TCD's queue is the
// egress queue without the frames still in the 500 ns switch pipeline: at 100 Gb/s F0 + F1 put
// 75 Gb/s x 500 ns = 4.7 KB in sw0's pipeline towards sw1, above tcd.low (2 KB), so when the
// pipeline was counted the victim, once paused, never went back to non-congestion: it stayed
// undetermined to the end and marked 37 786 of its 48 297 frames UE; at 400 Gb/s (18.75 KB in
// the pipeline, above tcd.high) the victim was even congestion from 120 us on, every frame CE.
// Checks: the victim is paused (undetermined at some point) and never congestion; from the
// bursts' end (the last burst byte delivered) + 4 max(Ton) to the end it is non-congestion in
// every sample (the pause outlasts the last burst byte while the backlog drains, about 200 us at
// 100 Gb/s; then the ON period must pass max(Ton) and the queue fall to tcd.low); so its UE marks
// stop with the bursts: at most the frames it sent until then.
void expect_paused_victim_returns_to_non_congestion(double rate_bps) {
  std::ifstream in(test::scenario_path("tcd-victim.yaml"));
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto replace = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = yaml.find(from); at != std::string::npos; at = yaml.find(from, at + to.size()))
      yaml.replace(at, from.size(), to);
  };
  const std::string gbps = std::to_string(static_cast<int>(rate_bps / 1e9));
  replace("link_rate: 40Gbps", "link_rate: " + gbps + "Gbps");
  replace("rate: 15Gbps", "rate: " + std::to_string(rate_bps * 15 / 40 / 1e9) + "Gbps");
  auto sim = test::make_sim(yaml);
  sim->run();
  const nlohmann::json s = sim->summary();
  const series& st = sim->samples().cp_state;
  double bursts_end_us = 0;  // the last burst flow's completion
  for (const auto& f : s["flows"])
    if (!f["fct_ns"].is_null()) bursts_end_us = std::max(bursts_end_us, 1000 + f["fct_ns"].get<double>() / 1e3);
  const double max_ton_us = counter(s, "sw0.port2.prio3.tcd.max_ton") / 1e3;
  EXPECT_GT(bursts_end_us, 1000) << "no burst completed";
  const double settled_us = bursts_end_us + 4 * max_ton_us;
  EXPECT_LT(settled_us, 5800) << "the bursts outlast the run";
  EXPECT_GE(counter(s, "sw0.port2.prio3.tcd.to_undetermined"), 1) << "the victim was never paused";
  EXPECT_EQ(counter(s, "sw0.port2.prio3.tcd.to_congestion"), 0);
  EXPECT_EQ(share_at(st, "sw0.port2.p3", 0, settled_us, 6000), 1.0) << bursts_end_us;
  EXPECT_EQ(share_at(st, "sw1.port16.p3", 0, settled_us, 6000), 1.0) << bursts_end_us;
  // F0 + F1 over the port until then, in 1026-byte frames: the most it could have marked.
  const double frames_until = 2 * rate_bps * 15 / 40 * settled_us * 1e-6 / 8 / 1026;
  EXPECT_LT(counter(s, "sw0.port2.prio3.tcd.ue_marked"), frames_until);
  EXPECT_GT(counter(s, "sw0.port2.prio3.tcd.ue_marked"), 0);
  EXPECT_GT(counter(s, "sw1.port16.prio3.tcd.ce_marked"), 0);  // the root is still seen
  std::cout << "[ measured ] " << gbps << " Gb/s: bursts end " << bursts_end_us << " us, victim undetermined "
            << counter(s, "sw0.port2.prio3.tcd.time_undetermined") / 1e3 << " us, UE "
            << counter(s, "sw0.port2.prio3.tcd.ue_marked") << " of " << counter(s, "sw0.port2.prio3.frames_out")
            << " frames\n";
}
}  // namespace

TEST(TcdSystem, APausedVictimReturnsToNonCongestionAt100G) { expect_paused_victim_returns_to_non_congestion(100e9); }
TEST(TcdSystem, APausedVictimReturnsToNonCongestionAt400G) { expect_paused_victim_returns_to_non_congestion(400e9); }

namespace {
// One 40 Gb/s sender through sw0 and sw1 to r0 on a slower last link (Rd): sw1's ingress group
// from sw0 fills at Ri - Rd = 40 Gb/s - Rd and sw1 pauses sw0's port towards it (port 1) in a
// steady ON-OFF cycle. Static XOFF 100 KB, XON gap 30 KB, 1 us links.
std::unique_ptr<simulation> on_off_dumbbell(const std::string& last_link_rate) {
  return test::make_sim(
      "platform: {kind: dumbbell, senders: 1, receivers: 1, link_rate: 40Gbps, bottleneck_rate: 40Gbps, "
      "link_delay: 1us}\n"
      "traffic: [{kind: constant, src: h0, dst: r0, rate: 40Gbps, priority: 3}]\n"
      "run: {until: 2ms, seed: 1, sample_period: 20us}\n"
      "params: {'*.mtu': 1000B, '*.mmu.threshold': static, '*.pfc.xoff': 100KB, '*.pfc.xon_offset': 30KB,\n"
      "         'sw1-r0.rate': " +
      last_link_rate + ", 'sw*.port*.prio3.cp': tcd}\n");
}
// Eq. (1) with B1 - B0 = 30 000 B and tau = 2 x 1 us + 64 B at 40 Gb/s = 2.0128 us, against the mean
// ON period the detector measured (end of an OFF period to the last departure before the next).
// Tolerance: the XOFF/XON decisions fall on frame boundaries at sw1, +-1062 B at Ri - Rd; and the
// measurement stops at the last departure, up to one frame time (1062 B at 40 Gb/s = 0.2124 us)
// before the pause takes effect.
void expect_on_periods_follow_the_model(double rd_bps, const std::string& rate) {
  auto sim = on_off_dumbbell(rate);
  sim->run();
  nlohmann::json s = sim->summary();
  const double model_ns = tcd_on_period_s(30000, 2.0128e-6, 40e9, rd_bps) * 1e9;
  const double frame_at_threshold_ns = 1062 * 8 / (40e9 - rd_bps) * 1e9, frame_time_ns = 212.4;
  EXPECT_GE(counter(s, "sw0.port1.prio3.tcd.on_periods"), 20);
  const double mean = counter(s, "sw0.port1.prio3.tcd.on_mean");
  EXPECT_GE(mean, model_ns - frame_at_threshold_ns - frame_time_ns) << model_ns;
  EXPECT_LE(mean, model_ns + frame_at_threshold_ns) << model_ns;
  EXPECT_LE(counter(s, "sw0.port1.prio3.tcd.on_max"), model_ns + frame_at_threshold_ns);
  // Far below max(Ton) = (2 x 30000 x 8 + 2.0128e-6 x 40e9) / (2 x 0.05 x 40e9) + 2.0128 us = 142.1408 us:
  // the paused port is undetermined, and the root (sw1 towards r0) congestion.
  EXPECT_NEAR(counter(s, "sw0.port1.prio3.tcd.max_ton"), 142140.8, 0.1);
  EXPECT_EQ(sim->samples().cp_state.rows.back()[1], 1.0);  // columns: sw0.port0, sw0.port1, sw1.port0, sw1.port1
  EXPECT_EQ(sim->samples().cp_state.rows.back()[3], 2.0);
}
}  // namespace

// Rd = 10 Gb/s: (240 000 + 2.0128e-6 x 10e9) / 30e9 + 2.0128 us = 8.6709 + 2.0128 = 10.684 us.
TEST(TcdSystem, OnPeriodsOfAPausedPortFollowTheOnOffModelAtRd10G) {
  expect_on_periods_follow_the_model(10e9, "10Gbps");
}
// Rd = 20 Gb/s: (240 000 + 2.0128e-6 x 20e9) / 20e9 + 2.0128 us = 14.0128 + 2.0128 = 16.026 us.
TEST(TcdSystem, OnPeriodsOfAPausedPortFollowTheOnOffModelAtRd20G) {
  expect_on_periods_follow_the_model(20e9, "20Gbps");
}

// TCD-aware DCQCN on tcd-victim with F0 under dcqcn+tcd (the bursts and F1 without congestion
// control, so the tree still forms): F0 crosses only the paused sw0 port and the idle sw1 -> r0
// port, so it sees UE and never CE. With the default ue_reaction = hold its rate is never cut and
// it is back at its 15 Gb/s as soon as the bursts are gone; told to cut on UE, DCQCN cuts the
// victim like a culprit (each CNP halves it at alpha = 1) and it is still far below 15 Gb/s at the
// end (additive increase: 40 Mb/s per 55 us, ~1.5 Gb/s in 2 ms).
namespace {
// The victim scenario with F0 (h0 -> r0) under congestion control `cc`, run by the CLI with
// `--set <set>`; its summary.
nlohmann::json run_victim_with_f0_cc(const std::string& scenario, const std::string& cc, const std::string& set) {
  std::ifstream in(test::scenario_path(scenario + ".yaml"));
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string f0 = "{kind: constant, src: h0, dst: r0, rate: 15Gbps, priority: 3}";
  yaml.replace(yaml.find(f0), f0.size(),
               "{kind: constant, src: h0, dst: r0, rate: 15Gbps, priority: 3, cc: " + cc + "}");
  const std::string base = ::testing::TempDir() + "/" + scenario + "-" + std::to_string(getpid());
  std::ofstream(base + ".yaml") << yaml;
  const std::string out = base + "-" + std::to_string(std::hash<std::string>{}(set));
  test::command_result r = test::run_cli("run " + base + ".yaml -q --set " + set + " --out " + out, "/dev/null");
  EXPECT_EQ(r.status, 0) << r.output;
  std::ifstream sum(out + "/summary.json");
  return nlohmann::json::parse(sum);
}
}  // namespace

TEST(TcdSystem, DcqcnTcdHoldsAVictimOnUeAndCutsItOnlyWhenConfiguredTo) {
  auto run = [](const std::string& reaction) {
    return run_victim_with_f0_cc("tcd-victim", "dcqcn+tcd", "h0.rp.ue_reaction=" + reaction);
  };
  const nlohmann::json hold = run("hold"), cut = run("cut");
  for (const nlohmann::json* s : {&hold, &cut}) {
    EXPECT_GT(counter(*s, "r0.np.ue_frames"), 0);
    EXPECT_EQ(counter(*s, "r0.np.ce_frames"), 0);  // F0 never crosses the root
    EXPECT_GT(counter(*s, "r0.np.flow0.cnps"), 0);
  }
  // F0's delivered bytes over the run: 6 ms at 15 Gb/s = 11.25 MB at most. Hold loses only the
  // burst period to PFC (~2.9 ms at ~1 Gb/s): at least 11.25 MB x 3/6 = 5.6 MB; cut also loses the
  // 2 ms after the bursts: at most 11.25 MB x 4.5/6 less 1.5 MB.
  const double hold_mb = test::find_flow(hold, "h0->r0")["rx_bytes"].get<double>() / 1e6;
  const double cut_mb = test::find_flow(cut, "h0->r0")["rx_bytes"].get<double>() / 1e6;
  EXPECT_GT(hold_mb, 5.6);
  EXPECT_GT(hold_mb, cut_mb + 2.0);
}

// ---- InfiniBand: OFF = starved for credit, code points in the BTH (docs/models/tcd.md) ----

// scenarios/tcd-victim-ib.yaml: tcd-victim on credits with 1 us links. max(Ton) of the credit
// loop: gap = credit.batch 8 KiB, tau = 4.096 us + 2 x 1 us + 1.2 ns = 6.0972 us:
// (2 x 8192 x 8 + 243888) / 4e9 = 93.74 us, + 6.0972 = 99.8372 us (TcdMaxTon.
// CreditLoopOfAnInfiniBandPort). sw0's port towards sw1 (port 2) is starved on and off while the
// bursts fill sw1's VL 3 input buffer from sw0 (ON periods of about a us): undetermined, never
// congestion; sw1's port towards r1 (port 16) is never starved (r1 returns credit at once, its
// 64 KiB cover the 6.1 us loop at 40 Gb/s, 30.5 KB) and its queue grows: congestion. The bursts
// (14.3 MB at 40 Gb/s from 1 ms) last at least 2.87 ms: the window 1.2 - 3.8 ms is inside them.
TEST(TcdSystem, CreditStarvedVictimPortIsUndeterminedAndTheRootPortIsCongestionOnInfiniBand) {
  const nlohmann::json s = expect_victim_undetermined_and_root_congestion("tcd-victim-ib.yaml", 1200, 1200, 99837.2);
  EXPECT_GT(counter(s, "sw0.port2.prio3.credit_blocked_time"), 1e6);  // ns: the victim really starves
  EXPECT_GT(counter(s, "sw1.port16.prio3.tcd.ce_marked"), 0);
  EXPECT_LT(counter(s, "sw0.port2.prio3.tcd.on_max"), 99837.2);
  EXPECT_EQ(s["totals"]["lossless_drops"], 0);
}

namespace {
// One 40 Gb/s sender through sw0 and sw1 to r0 on a slower last link (Rd), on credits: sw1's VL 3
// input buffer from sw0 stays full and sw0's port towards it (port 1) is starved between credit
// packets, one per min_interval I = 4.096 us (refresh off: 1 s; batch 0: every change may go,
// so the loop's gap is one block and max(Ton) 67.3252 us). 1 us links, 1026-byte frames.
// Each packet returns the Rd x I bytes released since the previous one, x = Rd I / 1026 frames;
// the ON period, from its arrival to the last of those frames' departures, is (n - 1) x 205.2 ns
// with n = floor(x) or ceil(x) frames (tcd_credit_on_period_s). Bounds: every period at most
// (ceil(x) - 1) x 205.2 ns; the mean over N periods within 2 frames / N of the model (the frames
// released in N intervals are N x (x) within one frame at each end).
void expect_credit_on_periods_follow_the_model(double rd_bps, const std::string& rate) {
  auto sim = test::make_sim(
      "platform: {kind: dumbbell, link_layer: ib, senders: 1, receivers: 1, link_rate: 40Gbps, "
      "bottleneck_rate: 40Gbps, link_delay: 1us}\n"
      "traffic: [{kind: constant, src: h0, dst: r0, rate: 40Gbps, priority: 3}]\n"
      "run: {until: 2ms, seed: 1, sample_period: 20us}\n"
      "params: {'*.mtu': 1000B, '*.credit.refresh': 1s, '*.credit.batch': 0B, 'sw1-r0.rate': " +
      rate + ", 'sw*.port*.prio3.cp': tcd}\n");
  sim->run();
  nlohmann::json s = sim->summary();
  const double frame_ns = 1026 * 8 / 40e9 * 1e9, x = rd_bps * 4.096e-6 / 8 / 1026;
  const double model_ns = tcd_credit_on_period_s(4.096e-6, rd_bps, 40e9, 1026) * 1e9;
  const double n = counter(s, "sw0.port1.prio3.tcd.on_periods");
  EXPECT_GE(n, 400);  // 2 ms / 4.096 us = 488 intervals, less the start
  EXPECT_NEAR(counter(s, "sw0.port1.prio3.tcd.on_mean"), model_ns, 2 * frame_ns / n) << model_ns;
  EXPECT_LE(counter(s, "sw0.port1.prio3.tcd.on_max"), (std::ceil(x) - 1) * frame_ns + 0.1);
  EXPECT_NEAR(counter(s, "sw0.port1.prio3.tcd.max_ton"), 67325.2, 0.1);
  EXPECT_EQ(sim->samples().cp_state.rows.back()[1], 1.0);  // the starved port: undetermined
  EXPECT_EQ(sim->samples().cp_state.rows.back()[3], 2.0);  // sw1 towards r0, the root: congestion
}
}  // namespace

// Rd = 10 Gb/s: x = 5120 / 1026 = 4.990; (4.990 - 1) x 205.2 ns = 818.8 ns; at most 4 x 205.2 = 820.8 ns.
TEST(TcdSystem, OnPeriodsOfACreditStarvedVlFollowTheCreditLoopAtRd10G) {
  expect_credit_on_periods_follow_the_model(10e9, "10Gbps");
}
// Rd = 20 Gb/s: x = 10240 / 1026 = 9.981; (9.981 - 1) x 205.2 ns = 1842.9 ns; at most 9 x 205.2 = 1846.8 ns.
TEST(TcdSystem, OnPeriodsOfACreditStarvedVlFollowTheCreditLoopAtRd20G) {
  expect_credit_on_periods_follow_the_model(20e9, "20Gbps");
}

// TCD-aware IB CCA on tcd-victim-ib with F0 under ib-cca+tcd: F0 crosses only the starved sw0
// port and the idle sw1 -> r0 port, so r0 sees UE and never FECN; it sends one UE BECN per
// np.ue_interval (50 us): at most 6 ms / 50 us = 120. With cca_ue_reaction = hold F0's CCTI never
// rises (0 at the end, every BECN a hold); with increase each BECN adds 1 and the timer
// (153.6 us) takes off at most 6 ms / 153.6 us = 39, so CCTI ends at least BECNs - 39 and F0
// delivers less.
TEST(TcdSystem, IbCcaTcdHoldsAVictimOnUeAndThrottlesItOnlyWhenConfiguredTo) {
  auto run = [](const std::string& reaction) {
    return run_victim_with_f0_cc("tcd-victim-ib", "ib-cca+tcd", "h0.rp.cca_ue_reaction=" + reaction);
  };
  const nlohmann::json hold = run("hold"), increase = run("increase");
  for (const nlohmann::json* s : {&hold, &increase}) {
    EXPECT_GT(counter(*s, "r0.np.ue_frames"), 0);
    EXPECT_EQ(counter(*s, "r0.np.fecn_frames"), 0);  // F0 never crosses the root
    EXPECT_GT(counter(*s, "r0.np.flow0.becns"), 0);
    EXPECT_LE(counter(*s, "r0.np.flow0.becns"), 120);
  }
  EXPECT_EQ(counter(hold, "h0.rp.flow0.ccti"), 0);
  EXPECT_EQ(counter(hold, "h0.rp.flow0.holds"), counter(hold, "r0.np.flow0.becns"));
  EXPECT_GE(counter(increase, "h0.rp.flow0.ccti"), counter(increase, "h0.rp.flow0.becns") - 39);
  EXPECT_GT(counter(increase, "h0.rp.flow0.ccti"), 0);
  const double hold_mb = test::find_flow(hold, "h0->r0")["rx_bytes"].get<double>() / 1e6;
  const double increase_mb = test::find_flow(increase, "h0->r0")["rx_bytes"].get<double>() / 1e6;
  EXPECT_GT(hold_mb, increase_mb);
}
