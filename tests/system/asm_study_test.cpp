// ASM (adaptive sliding mode) against the paper's claims, issue 20 items 3, 6, 7 and 8: flows
// joining and leaving, longer RTTs, a parking lot with a moving bottleneck, and the comparison
// with QCN, DCQCN and PCN. Every time scale is in tau = w S / C (w = 4, S = 150 KB: 480, 120,
// 48 us at 10, 40, 100 Gb/s), the slide's time constant, so one bound serves every speed. The
// numbers behind the bounds are in docs/models/asm.md ("Against the paper's claims").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>

#include "tests/support/harness.h"

using namespace sluice;

namespace {

constexpr double qeq_kib = 26, sigma_band_kib = 16, active_increase = 0.0025;
double tau_us(double gbps) { return 4 * 150000 * 8 / (gbps * 1e3); }
// The frames in the switch's 500 ns pipeline, which queue_depth also holds (Little's law).
double pipeline_kib(double gbps) { return gbps * 1e9 / 8 * 500e-9 / 1024; }
std::string num(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

int column(const series& s, const std::string& name) {
  for (std::size_t c = 0; c < s.columns.size(); ++c)
    if (s.columns[c] == name) return static_cast<int>(c);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// The queue column of node's port towards peer, on priority 3.
std::string queue_towards(const nlohmann::json& summary, const std::string& node, const std::string& peer) {
  for (const auto& p : summary["ports"])
    if (p["node"] == node && p["peer"] == peer) return node + ".port" + std::to_string(p["port"].get<int>()) + ".p3";
  ADD_FAILURE() << "no port " << node << " -> " << peer;
  return "";
}

std::vector<double> values(const series& s, const std::string& name) {
  const int c = column(s, name);
  std::vector<double> v;
  for (const auto& row : s.rows) v.push_back(row[c]);
  return v;
}

// Trailing mean over k samples.
std::vector<double> smooth(const std::vector<double>& v, std::size_t k) {
  std::vector<double> out(v.size());
  double sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    sum += v[i] - (i >= k ? v[i - k] : 0);
    out[i] = sum / static_cast<double>(std::min(i + 1, k));
  }
  return out;
}

double mean_over(const std::vector<double>& t, const std::vector<double>& v, double from, double to) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (t[i] > from && t[i] <= to) sum += v[i], ++n;
  return n ? sum / n : 0;
}

double jain(const std::vector<double>& r) {
  const double s = std::accumulate(r.begin(), r.end(), 0.0);
  double sq = 0;
  for (double x : r) sq += x * x;
  return s * s / (static_cast<double>(r.size()) * sq);
}

std::string dumbbell(int gbps, int senders, double delay_us, const std::string& traffic, double until_us, int seed,
                     double sample_us) {
  return "platform: {kind: dumbbell, senders: " + std::to_string(senders) + ", receivers: " + std::to_string(senders) +
         ", link_rate: " + std::to_string(gbps) + "Gbps, bottleneck_rate: " + std::to_string(gbps) +
         "Gbps, link_delay: " + num(delay_us * 1000) + "ns}\ntraffic:\n" + traffic + "run: {until: " + num(until_us) +
         "us, seed: " + std::to_string(seed) + ", sample_period: " + num(sample_us * 1000) + "ns}\n";
}

std::string traffic_line(const std::string& src, const std::string& dst, int gbps, const std::string& cc,
                         const std::string& timing = "") {
  const std::string kind = timing.empty() ? "constant" : "onoff";
  return "  - {kind: " + kind + ", src: " + src + ", dst: " + dst + ", rate: " + std::to_string(gbps) +
         "Gbps, priority: 3, cc: " + cc + timing + "}\n";
}
// A flow that sends from `start` to `stop` (an on period, then silence past the run).
std::string flow_between(const std::string& src, const std::string& dst, int gbps, const std::string& cc,
                         double start_us, double stop_us) {
  return traffic_line(
      src, dst, gbps, cc,
      ", start: " + num(start_us * 1000) + "ns, on: " + num((stop_us - start_us) * 1000) + "ns, off: 1s");
}

// ---- Item 8: against QCN, DCQCN and PCN, 3 line-rate flows on a 100 Gb/s dumbbell -------------

// The bottleneck's queue (KiB) and utilization, sampled every 10 us.
struct bottleneck_run {
  std::vector<double> t, queue, util;
};
bottleneck_run compare_run(const std::string& cc, double until_us) {
  std::string traffic;
  for (int i = 0; i < 3; ++i) traffic += traffic_line("h" + std::to_string(i), "r" + std::to_string(i), 100, cc);
  auto sim = test::make_sim(dumbbell(100, 3, 1, traffic, until_us, 1, 10));
  sim->run();
  bottleneck_run r;
  r.t = sim->samples().queue_depth.times_us;
  r.queue = values(sim->samples().queue_depth, "sw0.port3.p3");
  for (double& q : r.queue) q /= 1024;
  r.util = values(sim->samples().link_throughput, "sw0->sw1");
  for (double& u : r.util) u /= 100;
  return r;
}

// Convergence time as tools/asm_compare.py defines it: the first sample from which, to the end,
// the bottleneck is >= 95 % busy averaged over 100 us and the queue stays below its p99 over the
// run's second half + 10 KiB.
double convergence_us(const bottleneck_run& r) {
  std::vector<double> steady;
  for (std::size_t i = 0; i < r.t.size(); ++i)
    if (r.t[i] > r.t.back() / 2) steady.push_back(r.queue[i]);
  std::sort(steady.begin(), steady.end());
  const double p99 = steady[static_cast<std::size_t>(0.99 * (steady.size() - 1))];
  const std::vector<double> u = smooth(r.util, 10);
  double from = r.t.front();
  for (std::size_t i = 0; i < r.t.size(); ++i)
    if (u[i] < 0.95 || r.queue[i] > p99 + 10) from = i + 1 < r.t.size() ? r.t[i + 1] : 1e18;
  return from;
}

}  // namespace

// ASM settles in well under a millisecond (measured 0.28 ms, 5.8 tau) and then holds the queue
// at Qeq with the link full: bound 1 ms, utilization >= 99.9 % and a p99 within sigma_band of
// Qeq (with the pipeline's 6.1 KiB) over 10-20 ms. Measured (tools/asm_compare.py, 25-50 ms):
// mean 31.2 KiB, p99 33.7 KiB, 1.0000.
TEST(AsmStudy, CompareAt100GbpsAsmConvergesInUnderAMillisecondAndHoldsTheQueue) {
  const bottleneck_run r = compare_run("asm", 20000);
  EXPECT_LT(convergence_us(r), 1000);
  EXPECT_GT(mean_over(r.t, r.util, 10000, 20000), 0.999);
  for (std::size_t i = 0; i < r.t.size(); ++i)
    if (r.t[i] > 10000) {
      ASSERT_LE(r.queue[i], qeq_kib + pipeline_kib(100) + sigma_band_kib) << r.t[i];
    }
}

// DCQCN with its declared (40 Gb/s paper) defaults cuts the three flows to ~15 Gb/s at the start
// and climbs back slowly: over 5-10 ms the link is about half busy (measured 0.53; 0.69 over
// 10-20 ms; converged at 25-45 ms). Bound < 0.9, against ASM's 1.000.
TEST(AsmStudy, CompareAt100GbpsDcqcnIsStillBelowTheLinkAfterFiveMilliseconds) {
  const bottleneck_run r = compare_run("dcqcn", 10000);
  EXPECT_LT(mean_over(r.t, r.util, 5000, 10000), 0.9);
}

// PCN keeps the link full but drains the start's queue over ~12 ms: at 2-5 ms its mean queue is
// ~1 MB (measured 1038 KiB; 579 KiB at 5-10 ms). Bound: above 10 times ASM's steady bound.
TEST(AsmStudy, CompareAt100GbpsPcnHoldsTheStartQueueForMilliseconds) {
  const bottleneck_run r = compare_run("pcn", 5000);
  EXPECT_GT(mean_over(r.t, r.queue, 2000, 5000), 10 * (qeq_kib + pipeline_kib(100) + sigma_band_kib));
  EXPECT_GT(mean_over(r.t, r.util, 2000, 5000), 0.99);
}

// ---- Item 3: five sources, two from the start, three joining one by one, then leaving --------

// Epochs of T = 40 tau: h0, h1 from 0; h2, h3, h4 join at T, 2T, 3T and leave at 6T, 5T, 4T.
// Bounds per epoch, all in tau, measured at 10, 40 and 100 Gb/s with seeds 1 and 2: utilization
// >= 98 % (measured >= 0.995); the aggregate re-converges (the bottleneck >= 95 % busy averaged
// over tau and the queue below Qeq + sigma_band) within 10 tau of each event (measured <= 7.0
// tau). The shares converge: within 20 tau of every join and leave, Jain's index of the active
// flows' rates over the epoch's second half >= 0.95 (measured 0.960-1.000; before the active
// increase 0.63-0.97) and every flow >= half of C/N (measured >= 0.77; before 0.19). From the
// simultaneous line-rate start of the first epoch Jain >= 0.8 over 20-40 tau (measured
// 0.836-0.999: the start's split takes about 40 tau to even out at 100 Gb/s, where the CP's
// 16 us feedback hold exceeds the 12 us sampling interval).
void joining_and_leaving(int gbps, int seed) {
  const double tau = tau_us(gbps), T = 40 * tau;
  std::string traffic = traffic_line("h0", "r0", gbps, "asm") + traffic_line("h1", "r1", gbps, "asm");
  for (int j = 0; j < 3; ++j)
    traffic +=
        flow_between("h" + std::to_string(2 + j), "r" + std::to_string(2 + j), gbps, "asm", (j + 1) * T, (6 - j) * T);
  auto sim = test::make_sim(dumbbell(gbps, 5, 1, traffic, 7 * T, seed, tau / 40));
  sim->run();
  const series& fs = sim->samples().flow_throughput;
  const std::vector<double> t = sim->samples().queue_depth.times_us;
  const std::vector<double> q = values(sim->samples().queue_depth, "sw0.port5.p3");
  std::vector<double> u = values(sim->samples().link_throughput, "sw0->sw1");
  for (double& x : u) x /= gbps;
  const std::vector<double> busy = smooth(u, 40);
  for (int e = 0; e < 7; ++e) {
    const double a = e * T, b = (e + 1) * T;
    const int active = 2 + std::min(e, 6 - e);
    SCOPED_TRACE("epoch " + std::to_string(e) + ", " + std::to_string(active) + " flows");
    EXPECT_GE(mean_over(t, u, a, b), 0.98);
    double settled = a;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] > a && t[i] <= b && (busy[i] < 0.95 || q[i] / 1024 > qeq_kib + pipeline_kib(gbps) + sigma_band_kib))
        settled = t[i];
    EXPECT_LE(settled - a, 10 * tau);
    std::vector<double> rates;
    for (int f = 0; f < active; ++f)
      rates.push_back(mean_over(t, values(fs, "h" + std::to_string(f) + "->r" + std::to_string(f)), a + T / 2, b));
    const bool start = e == 0;
    for (double r : rates) EXPECT_GE(r, (start ? 0.3 : 0.5) * gbps / active);
    EXPECT_GE(jain(rates), start ? 0.8 : 0.95);
  }
}
TEST(AsmStudy, JoiningAndLeavingAt40GbpsSeed1) { joining_and_leaving(40, 1); }
TEST(AsmStudy, JoiningAndLeavingAt40GbpsSeed2) { joining_and_leaving(40, 2); }
TEST(AsmStudy, JoiningAndLeavingAt100GbpsSeed1) { joining_and_leaving(100, 1); }

// ---- Item 6: larger RTT ----------------------------------------------------------------------

// Link delay tau / 16 on every link (30, 7.5, 3 us at 10, 40, 100 Gb/s; a loop delay, sample to
// new rate at the queue, of about tau / 8). Over the run's last two thirds ASM keeps the link
// full and the queue never empty (measured 1.000, 3 and 5 flows, seeds 1 and 2); QCN with its
// standard parameters empties the queue and loses a quarter to three quarters of the link
// (measured 0.38-0.73). ASM itself breaks at tau / 10 to tau / 8 (the sweep in
// docs/models/asm.md).
struct delay_run {
  double util = 0, empty_fraction = 0;
};
delay_run at_long_delay(int gbps, const std::string& cc, int seed) {
  const double tau = tau_us(gbps), delay = tau / 16, until = std::max(60 * tau, 20 * tau + 1200 * delay);
  std::string traffic;
  for (int i = 0; i < 3; ++i) traffic += traffic_line("h" + std::to_string(i), "r" + std::to_string(i), gbps, cc);
  auto sim = test::make_sim(dumbbell(gbps, 3, delay, traffic, until, seed, tau / 40));
  sim->run();
  const std::vector<double> t = sim->samples().queue_depth.times_us;
  const std::vector<double> q = values(sim->samples().queue_depth, "sw0.port3.p3");
  const std::vector<double> u = values(sim->samples().link_throughput, "sw0->sw1");
  delay_run r;
  int n = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] < until / 3) continue;
    r.util += u[i] / gbps;
    r.empty_fraction += q[i] / 1024 <= pipeline_kib(gbps) + 1;
    ++n;
  }
  r.util /= n;
  r.empty_fraction /= n;
  return r;
}
void expect_asm_stable(int gbps, int seed) {
  const delay_run r = at_long_delay(gbps, "asm", seed);
  EXPECT_GT(r.util, 0.99);
  EXPECT_LT(r.empty_fraction, 0.01);
}
TEST(AsmStudy, LongDelayAsmStaysStableAt10Gbps) { expect_asm_stable(10, 1); }
TEST(AsmStudy, LongDelayAsmStaysStableAt40Gbps) { expect_asm_stable(40, 2); }
TEST(AsmStudy, LongDelayAsmStaysStableAt100Gbps) { expect_asm_stable(100, 1); }
TEST(AsmStudy, LongDelayQcnDrainsTheQueueAt40Gbps) {
  const delay_run r = at_long_delay(40, "qcn", 2);
  EXPECT_LT(r.util, 0.9);
  EXPECT_GT(r.empty_fraction, 0.5);
}

// ---- Item 7: parking lot, cross flows at random times ------------------------------------------

// A 4-switch parking lot: the long flow h0 -> r0 crosses the three inter-switch links; link i
// also carries i + 1 cross flows x_i -> y_i, each on from a random time in [0, 60 tau) for a
// random 30-60 tau (seeded), so the bottleneck moves from link to link and finally vanishes.
// Bounds, for every interval between two start or stop times that lasts >= 20 tau, from 10 tau
// after its start: a link with a cross flow on is >= 97 % busy with its queue below Qeq +
// pipeline + 2 (sigma_band + the active increase's drift) (the new bottleneck's CP takes over;
// measured at 10 and 40 Gb/s, seeds 1-4: >= 0.998, <= 68.4 KiB); the long flow gets >= 40 % of
// its max-min share (the least of C / (n_i + 1) over the loaded links; measured 0.51-0.91, before
// the active increase 0.12-0.29 at 40 Gb/s); no PFC, no drops; once every cross flow has
// stopped, the long flow is back at >= 95 % of the line (measured 1.000; QCN stays at 0.15). At
// 100 Gb/s the far CP's loop delay (three hops each way, ~tau / 7) is past ASM's delay limit
// (item 6): >= 0.987 busy, and the long flow at 0.13-0.30 of its share. Below max-min: see
// docs/models/asm.md.
void parking_lot(int gbps, int seed) {
  const double tau = tau_us(gbps), until = 140 * tau;
  std::mt19937 rng(static_cast<uint32_t>(seed));
  const auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
  struct cross {
    int link;
    double start, stop;
  };
  std::vector<cross> xs;
  std::string traffic = traffic_line("h0", "r0", gbps, "asm");
  std::vector<double> events{0, until};
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k <= i; ++k) {
      const double s = uniform(0, 60 * tau), e = s + uniform(30 * tau, 60 * tau);
      xs.push_back({i, s, e});
      events.push_back(s);
      events.push_back(e);
      traffic += flow_between("x" + std::to_string(i), "y" + std::to_string(i), gbps, "asm", s, e);
    }
  std::sort(events.begin(), events.end());
  auto sim = test::make_sim("platform: {kind: parking-lot, switches: 4, link_rate: " + std::to_string(gbps) +
                            "Gbps, link_delay: 1us}\ntraffic:\n" + traffic + "run: {until: " + num(until) +
                            "us, seed: " + std::to_string(seed) + ", sample_period: " + num(tau / 40 * 1000) + "ns}\n");
  sim->run();
  const nlohmann::json s = sim->summary();
  EXPECT_EQ(s["totals"]["drops"], 0);
  for (const auto& p : s["ports"]) EXPECT_EQ(p["pause_sent"], 0) << p["node"] << "." << p["port"];
  const std::vector<double> t = sim->samples().queue_depth.times_us;
  for (std::size_t k = 0; k + 1 < events.size(); ++k) {
    const double a = events[k], b = events[k + 1];
    if (b - a < 20 * tau) continue;
    double max_min = gbps;  // the long flow's max-min share over this interval
    for (int i = 0; i < 3; ++i) {
      const auto n = std::count_if(xs.begin(), xs.end(),
                                   [&](const cross& x) { return x.link == i && x.start <= a && x.stop > a; });
      if (n == 0) continue;
      max_min = std::min(max_min, gbps / (static_cast<double>(n) + 1));
      const std::string next = "sw" + std::to_string(i + 1), here = "sw" + std::to_string(i);
      SCOPED_TRACE("link " + here + "->" + next + " over " + num(a) + "-" + num(b) + " us");
      const std::vector<double> u = values(sim->samples().link_throughput, here + "->" + next);
      EXPECT_GE(mean_over(t, u, a + 10 * tau, b) / gbps, 0.97);
      const std::vector<double> q = values(sim->samples().queue_depth, queue_towards(s, here, next));
      // Two bands, each widened by the active increase's drift of the link's n + 1 flows over two
      // sampling intervals (w (n + 1) a S each; docs/models/asm.md, "Active increase").
      const double drift_kib = 2 * 4 * (static_cast<double>(n) + 1) * active_increase * 150000 / 1024;
      for (std::size_t j = 0; j < t.size(); ++j)
        if (t[j] > a + 10 * tau && t[j] <= b) {
          ASSERT_LE(q[j] / 1024, qeq_kib + pipeline_kib(gbps) + 2 * (sigma_band_kib + drift_kib)) << t[j];
        }
    }
    SCOPED_TRACE("long flow over " + num(a) + "-" + num(b) + " us");
    if (max_min < gbps) {
      EXPECT_GE(mean_over(t, values(sim->samples().flow_throughput, "h0->r0"), a + 10 * tau, b), 0.4 * max_min);
    }
  }
  const double last_stop = events[events.size() - 2];
  ASSERT_LT(last_stop, until - 20 * tau);
  EXPECT_GE(mean_over(t, values(sim->samples().flow_throughput, "h0->r0"), last_stop + 10 * tau, until), 0.95 * gbps);
}
TEST(AsmStudy, ParkingLotFollowsTheMovingBottleneckAt40GbpsSeed1) { parking_lot(40, 1); }
TEST(AsmStudy, ParkingLotFollowsTheMovingBottleneckAt40GbpsSeed2) { parking_lot(40, 2); }
TEST(AsmStudy, ParkingLotFollowsTheMovingBottleneckAt10GbpsSeed4) { parking_lot(10, 4); }
