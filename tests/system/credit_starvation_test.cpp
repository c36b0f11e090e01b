// Property test of credit-starvation accounting (models/link/credit_flow_control.*): over long,
// randomised InfiniBand runs, every (port, VL)'s starved time is checked every 2 us of simulated
// time: it never goes backwards, grows by at most the time elapsed since the last check (so no
// period is negative) and never exceeds the elapsed time; the end of the latest starvation is
// never in the future and never moves back. Sources ask may_send ahead of time
// (next_ready_ps at the end of the frame on the wire); starvation is recorded only when a
// transmitter finds a ready frame refused, at real time (on_waiting).
#include <gtest/gtest.h>

#include <random>

#include "platforms/timed_callbacks.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
// A k = 4 InfiniBand fat tree (16 hosts) under a random mix: background workload plus a few
// hot constant flows on random SLs, with the credit loop's knobs drawn from `seed`.
std::string random_fabric(std::mt19937& rng, std::vector<std::pair<std::string, std::string>>& sets) {
  auto pick = [&](std::vector<std::string> v) { return v[rng() % v.size()]; };
  const std::string rate = pick({"40Gbps", "100Gbps"});
  std::string yaml = "platform: {kind: fat-tree, link_layer: ib, k: 4, link_rate: " + rate +
                     ", link_delay: " + pick({"500ns", "1us", "3us"}) +
                     "}\n"
                     "traffic:\n"
                     "  - {kind: workload, src: 'h*', dst: 'h*', cdf: websearch, load: 0.3, start: 0us, stop: 3ms, "
                     "priority: 0}\n";
  for (int i = 0; i < 4; ++i)  // hot spots: several hosts into one, on SLs 0-3
    yaml += "  - {kind: constant, src: h" + std::to_string(rng() % 3) + "_" + std::to_string(rng() % 2) + "_" +
            std::to_string(rng() % 2) + ", dst: h3_1_1, rate: " + pick({"10Gbps", "40Gbps"}) +
            ", priority: " + std::to_string(rng() % 4) + "}\n";
  yaml += "run: {until: 3ms, seed: " + std::to_string(rng() % 1000) +
          ", sample_period: 100us}\nparams: {'*.mtu': " + pick({"1000B", "2048B", "4096B"}) + "}\n";
  sets = {{"*.credit.batch", pick({"0B", "1KiB", "8KiB"})},
          {"*.credit.min_interval", pick({"0ns", "1us", "4.096us", "10us"})},
          {"*.credit.refresh", pick({"5us", "65.536us", "1s"})},
          {"*.credit.prio*.buffer", pick({"8KiB", "16KiB", "64KiB"})}};
  return yaml;
}

void expect_starvation_periods_are_sound(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<std::string, std::string>> sets;
  const std::string yaml = random_fabric(rng, sets);
  auto sim = test::make_sim(yaml, sets);
  fabric& f = sim->fabric_model();
  std::vector<const credit_flow_control*> ports;
  for (const auto& sw : f.switches)
    for (const auto& p : sw->ports) ports.push_back(p->credits.get());
  for (const auto& n : f.nics) ports.push_back(n->port.credits.get());
  const int vls = max_classes;
  std::vector<uint64_t> blocked(ports.size() * vls, 0), off_end(ports.size() * vls, 0);
  uint64_t last = 0, checks = 0, starved = 0;
  int failures = 0;
  const uint64_t end = to_ps(sim->until());
  timed_callbacks probe("probe", end);
  probe.add(2'000'000, 2'000'000, [&] {
    const uint64_t now = now_ps();
    for (std::size_t p = 0; p < ports.size(); ++p)
      for (int vl = 0; vl < vls; ++vl) {
        const std::size_t i = p * vls + vl;
        const uint64_t b = ports[p]->blocked_ps(vl, now), o = ports[p]->off_end_ps(vl, now);
        ++checks;
        starved += b > blocked[i];
        const bool ok = b >= blocked[i] && b - blocked[i] <= now - last && b <= now && o <= now && o >= off_end[i];
        if (!ok && failures++ < 5)
          ADD_FAILURE() << ports[p]->name() << " VL" << vl << " at " << now << " ps: starved " << b << " ps (was "
                        << blocked[i] << " at " << last << "), latest end " << o << " (was " << off_end[i] << ")";
        blocked[i] = b;
        off_end[i] = o;
      }
    last = now;
  });
  sim->run();
  probe.finish();
  EXPECT_EQ(failures, 0) << yaml;
  EXPECT_GE(checks, 1000u * ports.size());  // every 2 us over 3 ms, every VL
  EXPECT_GT(starved, 0u) << "the run never starved: it checks nothing\n" << yaml;
  // The summary's counters agree: no VL starved longer than the run. The summary is held: a
  // range-for over a member of the temporary would outlive it (use-after-free under ASan).
  const auto summary = sim->summary();
  for (const auto& [name, value] : summary["counters"].items())
    if (name.find("credit_blocked_time") != std::string::npos) {
      EXPECT_LE(value.get<double>(), 3e6) << name;
    }
}
}  // namespace

TEST(CreditStarvation, PeriodsAreNeverNegativeNorLongerThanTheRunSeed1) { expect_starvation_periods_are_sound(1); }
TEST(CreditStarvation, PeriodsAreNeverNegativeNorLongerThanTheRunSeed2) { expect_starvation_periods_are_sound(2); }
TEST(CreditStarvation, PeriodsAreNeverNegativeNorLongerThanTheRunSeed3) { expect_starvation_periods_are_sound(3); }
TEST(CreditStarvation, PeriodsAreNeverNegativeNorLongerThanTheRunSeed4) { expect_starvation_periods_are_sound(4); }
