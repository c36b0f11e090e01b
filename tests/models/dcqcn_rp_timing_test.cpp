// DCQCN's reaction point in time, driven by the event queue (the rules' single steps are in
// tests/unit/dcqcn_rules_test.cpp): rp.rate_decrease_interval cuts at most once per interval, on
// its tick, however many CNPs came; rp.alpha_update = per-window updates alpha once per
// rp.alpha_timer window by whether a CNP came in it. a sends one endless 40 Gb/s flow to b over
// one 40 Gb/s, 1 us link; b's CNPs (64 B: 12.8 ns on the wire) land at a 1.0128 us after b sends
// them. The rate timer (55 us, restarted by each cut) and the 10 MB byte counter do not fire in
// these runs.
#include <gtest/gtest.h>

#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct cnp_bench {
  std::unique_ptr<simulation> sim;
  test::step_driver d{"driver"};
  std::vector<std::pair<double, double>> seen;  // (us, a's limit for the flow, bit/s; 0: unlimited)

  cnp_bench(std::vector<std::pair<std::string, std::string>> sets, double until_us) {
    sets.push_back({"a.rp", "dcqcn"});
    sim = test::make_sim(test::two_nics("{kind: constant, src: a, dst: b, rate: 40Gbps, priority: 3}",
                                        "run: {until: " + std::to_string(until_us) + "us}\n"),
                         sets);
  }
  nic& a() { return *sim->fabric_model().nics[0]; }
  nic& b() { return *sim->fabric_model().nics[1]; }
  // Steps in time order: b sends a CNP about the flow at `us`; the limit is read at `us`.
  void cnp_at(double us) {
    d.at(sc_time(us * 1000, SC_NS),
         [this] { b().send_control(test::switch_frame(frame_kind::cnp, b().node_id(), a().node_id(), 0, 3)); });
  }
  void look_at(double us) {
    d.at(sc_time(us * 1000, SC_NS), [this, us] { seen.push_back({us, a().limiter(0).rate().bps}); });
  }
  std::vector<double> rates() const {
    std::vector<double> r;
    for (const auto& s : seen) r.push_back(s.second);
    return r;
  }
};
}  // namespace

TEST(DcqcnRpTiming, RateDecreaseIntervalCutsAtMostOncePerIntervalOnItsTick) {
  // The first CNP lands at 11.0128 us and starts the 4 us grid: no cut until its tick at
  // 15.0128 us, then 40 -> 20 Gb/s (alpha 1). Two CNPs land at 17.0128 and 18.0128 us, inside
  // the next interval: one cut, at the tick of 19.0128 us, 20 -> 10 Gb/s. The tick of 23.0128 us
  // saw no CNP: no cut. (The paper's rule, interval 0, would cut at each of the three.)
  cnp_bench b({{"a.rp.rate_decrease_interval", "4us"}}, 24);
  b.cnp_at(10);
  b.look_at(11.1);   // the CNP is here; the cut waits for the tick
  b.look_at(15.01);  // 2.8 ns before the tick
  b.look_at(15.02);
  b.cnp_at(16);
  b.cnp_at(17);
  b.look_at(19.01);
  b.look_at(19.02);
  b.look_at(23.5);
  b.sim->run();
  EXPECT_EQ(b.rates(), (std::vector<double>{0, 0, 20e9, 20e9, 10e9, 10e9}));
}

TEST(DcqcnRpTiming, PerWindowAlphaRisesOncePerWindowWithACnpAndDecaysInAWindowWithout) {
  // g = 1/2, windows of rp.alpha_timer = 10 us from the first CNP (11.0128 us); each CNP cuts at
  // once (interval 0) by the alpha it finds: rc (1 - alpha/2).
  //   11.0128 cut, alpha 1: 40 -> 20 G.       window to 21.0128 had a CNP: alpha (1-g) 1 + g = 1
  //   26.0128 cut, alpha 1: 20 -> 10 G.       window to 31.0128 had a CNP: alpha 1
  //                                           window to 41.0128 had none:  alpha 1/2
  //   43.0128, 45.0128, 47.0128: three cuts by 1/4 each: 7.5, 5.625, 4.21875 G
  //                                           window to 51.0128 had three: alpha 1/2 x 1/2 + 1/2 = 3/4, once
  //   53.0128 cut, alpha 3/4: 4.21875 x 0.625 = 2.63671875 G (per CNP it would be 0.875 x ...).
  cnp_bench b({{"a.rp.alpha_update", "per-window"}, {"a.rp.alpha_timer", "10us"}, {"a.rp.g", "0.5"}}, 54);
  b.cnp_at(10);
  b.look_at(11.1);
  b.cnp_at(25);
  b.look_at(26.1);
  b.cnp_at(42);
  b.look_at(43.1);
  b.cnp_at(44);
  b.cnp_at(46);
  b.look_at(47.1);
  b.cnp_at(52);
  b.look_at(53.1);
  b.sim->run();
  EXPECT_EQ(b.rates(), (std::vector<double>{20e9, 10e9, 7.5e9, 4.21875e9, 2.63671875e9}));
}
