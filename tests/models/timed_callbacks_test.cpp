// Functions called at simulated times (Python's sim.at / sim.every, the run's progress meter):
// foreign activity to the event queue, so each sees the models exactly at its time; periodic
// ones run up to and including the end of the run; ties run in the order they were added.
#include "platforms/timed_callbacks.h"

#include <gtest/gtest.h>

#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using test::ns_ps;

namespace {
// 100 frames of 1000 B from a to b at 40 Gb/s: one starts every 200 ns and lands 1.2 us after
// it starts.
std::unique_ptr<simulation> hundred_frames() {
  return test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 100KB, priority: 3}",
                                       "run: {until: 30us, sample_period: 30us}\n"));
}
}  // namespace

TEST(TimedCallbacks, SeeTheModelsAtTheirTimeAndRunUpToTheEnd) {
  auto sim = hundred_frames();
  const nic &a = *sim->fabric_model().nics[0], &b = *sim->fabric_model().nics[1];
  timed_callbacks calls("calls", ns_ps(30000));
  std::vector<std::string> log;
  uint64_t sent = 0, received = 0;
  calls.add(ns_ps(1500), 0, [&] {
    sent = a.port.mac.frames_sent();
    received = b.frames_received();
  });
  std::vector<uint64_t> ticks;
  calls.add(ns_ps(1000), ns_ps(1000), [&] { ticks.push_back(now_ps()); });
  calls.add(ns_ps(2000), 0, [&] { log.push_back("first"); });
  calls.add(ns_ps(2000), 0, [&] { log.push_back("second"); });
  calls.add(ns_ps(30000), 0, [&] { log.push_back("at the end"); });
  calls.add(ns_ps(31000), 0, [&] { log.push_back("after the end"); });
  sim->run();
  calls.finish();
  EXPECT_EQ(sent, 8u);      // started at 0, 0.2, ..., 1.4 us
  EXPECT_EQ(received, 2u);  // landed at 1.2 and 1.4 us
  // Every 1 us over 30 us: 1, 2, ..., 30 us, the last one by finish() (the kernel stops first).
  ASSERT_EQ(ticks.size(), 30u);
  EXPECT_EQ(ticks.front(), ns_ps(1000));
  EXPECT_EQ(ticks.back(), ns_ps(30000));
  EXPECT_EQ(log, (std::vector<std::string>{"first", "second", "at the end"}));
}
