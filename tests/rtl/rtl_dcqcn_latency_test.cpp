// dcqcn-rtl's cycles as model time (rtl.latency = cycles): a new rate reaches the flow's limiter
// when the block answers its last event, the NIC's one block serving events one at a time. a
// sends two endless 40 Gb/s flows to b over one 40 Gb/s, 1 us link; b sends a CNP for each at
// 10 us, which land at a 11.0128 and 11.0256 us (64 B, 12.8 ns on the wire each). Each cut
// restarts the flow's alpha and rate timers (55 us), which then fire together: an alpha event
// (no new rate) and a rate event (a new rate), in that order. Every event takes the block one
// cycle.
#include <gtest/gtest.h>

#include "models/core/probe.h"
#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct rate_change {
  uint32_t flow;
  uint64_t at_ps, bps;
  bool operator==(const rate_change& o) const { return flow == o.flow && at_ps == o.at_ps && bps == o.bps; }
};
std::ostream& operator<<(std::ostream& os, const rate_change& c) {
  return os << "{flow " << c.flow << " at " << c.at_ps << " ps: " << c.bps << " b/s}";
}

// a's rate changes (the limiter taking a new rate) over `until_us` with the given settings, b
// sending a CNP for each of `flows` flows at each of `cnp_us` (one simulation per process: one
// call per test).
std::vector<rate_change> changes(std::vector<std::pair<std::string, std::string>> sets, int flows = 2,
                                 std::vector<double> cnp_us = {10}, double until_us = 72) {
  sets.push_back({"a.rp", "dcqcn-rtl"});
  test::step_driver d("driver");  // a module: made before the simulation elaborates
  std::string traffic;
  for (int f = 0; f < flows; ++f)
    traffic += std::string(f ? ", " : "") + "{kind: constant, src: a, dst: b, rate: 40Gbps, priority: 3}";
  auto sim = test::make_sim(test::two_nics(traffic, "run: {until: " + std::to_string(until_us) + "us}\n"), sets);
  nic& a = *sim->fabric_model().nics[0];
  nic& b = *sim->fabric_model().nics[1];
  for (double us : cnp_us)
    d.at(sc_time(us, sc_core::SC_US), [&, flows] {
      for (int flow = 0; flow < flows; ++flow)
        b.send_control(test::switch_frame(frame_kind::cnp, b.node_id(), a.node_id(), flow, 3));
    });
  std::vector<rate_change> seen;
  probe_registry::instance().subscribe("a.rate_change", [&](const probe_point&, const probe_event& e) {
    seen.push_back({e.flow_id, e.time_ps, e.value});
  });
  sim->run();
  return seen;
}

// At rtl.latency none each rate at its event: the cuts as the CNPs land, the increases at the
// timers, 55 us later. The block's arithmetic: 40 G x (1 - 65535/2^17), rounded up, is
// 524 296/2^20 of the line rate; the increase is the mean with the target.
const std::vector<rate_change> at_once = {{0, 11'012'800, 20'000'305'175},
                                          {1, 11'025'600, 20'000'305'175},
                                          {0, 66'012'800, 30'000'152'587},
                                          {1, 66'025'600, 30'000'152'587}};

// The same rates, each `delay_ps` later.
std::vector<rate_change> later(const std::vector<uint64_t>& delay_ps) {
  std::vector<rate_change> r = at_once;
  for (std::size_t i = 0; i < r.size(); ++i) r[i].at_ps += delay_ps[i];
  return r;
}
}  // namespace

TEST(RtlDcqcnLatency, ByDefaultEachNewRateTakesEffectAtItsEvent) { EXPECT_EQ(changes({}), at_once); }

TEST(RtlDcqcnLatency, TheClockAloneChangesNothing) {
  EXPECT_EQ(changes({{"a.rtl.latency", "none"}, {"a.rtl.clock", "1us"}}), at_once);
}

TEST(RtlDcqcnLatency, ANewRateTakesEffectWhenTheBlockAnswers) {
  // A 1 us clock: flow 0's cut answers one cycle after its CNP; flow 1's CNP finds the block busy
  // until then and answers a cycle later. At the timers flow 0's alpha event takes 66.0128-67.0128
  // us and its rate event the next cycle; flow 1's two events wait for those and answer at
  // 70.0128 us.
  EXPECT_EQ(changes({{"a.rtl.latency", "cycles"}, {"a.rtl.clock", "1us"}}),
            later({1'000'000, 1'987'200, 2'000'000, 3'987'200}));
}

TEST(RtlDcqcnLatency, AtThreeNanosecondsACycleNoEventWaits) {
  // The CNPs come 12.8 ns apart: each rate one cycle after its event, the increases two (the
  // alpha event before it).
  EXPECT_EQ(changes({{"a.rtl.latency", "cycles"}, {"a.rtl.clock", "3ns"}}), later({3'000, 3'000, 6'000, 6'000}));
}

TEST(RtlDcqcnLatency, AlphaPeriodsCaughtUpAfterAnIdleSpellCostNoCycles) {
  // One flow, 1 us timers: the cut at 11.0128 us and 20 or so rate-timer steps bring it back to
  // the line rate, where its timers stop. The CNP at 100 us then catches up on the ~70 alpha
  // periods missed (70 block events, in the past) before its cut: the cut's rate comes one 100 ns
  // cycle after the CNP lands, not 71.
  const std::vector<rate_change> seen = changes(
      {{"a.rtl.latency", "cycles"}, {"a.rtl.clock", "100ns"}, {"a.rp.timer", "1us"}, {"a.rp.alpha_timer", "1us"}}, 1,
      {10, 100}, 110);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().at_ps, 11'112'800u);  // the first cut, a cycle after 11.0128 us
  std::size_t back = 0;                        // the last change before the second CNP: back at the line rate
  while (back + 1 < seen.size() && seen[back + 1].at_ps < 100'000'000) ++back;
  EXPECT_EQ(seen[back].bps, 40'000'000'000u);
  EXPECT_LT(seen[back].at_ps, 60'000'000u);
  ASSERT_GT(seen.size(), back + 1) << "no change after the second CNP";
  EXPECT_EQ(seen[back + 1].at_ps, 101'112'800u);
  EXPECT_LT(seen[back + 1].bps, 40'000'000'000u);
}
