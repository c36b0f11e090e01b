// Register writes act on the live model at their time, and reads see it at theirs: a write to
// a PFC threshold and, separately, to an ECN Kmin at 100 us of a run (through the switch's TLM
// target, from a thread running ahead with the time as its delay) leaves every event before
// 100 us as the run without it, and every decision after it uses the new value; a write at
// time 0 gives the same run as the value in the scenario; a counter read at a time t returns
// the count of events up to t. (Mirrors tests/system/live_params_test.cpp, whose runs these are.)
#include <gtest/gtest.h>

#include "tests/regs/reg_port.h"
#include "tests/support/live_runs.h"

using namespace sluice;

namespace {

constexpr uint64_t us_ps = 1000000ull;
constexpr uint64_t old_xoff = 48 * 1024, new_xoff = 24 * 1024;

// Every sw0 port's PFC_XOFF written with `bytes` at `at_ps`, through sw0's register target.
test::arrange_fn write_xoff(uint32_t bytes, uint64_t at_ps, std::unique_ptr<test::timed_accesses>& writer) {
  return [bytes, at_ps, &writer](simulation& sim, timed_callbacks&) {
    switch_model& sw = *sim.fabric_model().switches[0];
    writer = std::make_unique<test::timed_accesses>("xoff_writer", sw.registers);
    for (std::size_t p = 0; p < sw.ports.size(); ++p)
      writer->accesses.push_back(
          {at_ps, sw.registers.bank().address_of("switch_port[" + std::to_string(p) + "].PFC_XOFF"), bytes, true});
  };
}

std::string incast_with_xoff_written(uint64_t at_ps) {
  std::unique_ptr<test::timed_accesses> writer;
  const std::string out = test::run_logged_incast({}, write_xoff(new_xoff, at_ps, writer));
  EXPECT_EQ(writer->accesses.size(), 17u);
  for (const auto& a : writer->accesses) {
    EXPECT_EQ(a.status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(a.done_ps, at_ps + 4000);  // the access latency: 4 cycles of 1 ns
  }
  return out;
}

}  // namespace

TEST(RegisterLive, APfcThresholdWrittenAt100usTakesEffectThenAndOnlyThen) {
  constexpr uint64_t at = 100 * us_ps;
  const std::string without =
      test::in_child([] { return test::run_logged_incast({}, [](simulation&, timed_callbacks&) {}); });
  const std::string with = incast_with_xoff_written(at);
  const std::string before = test::lines_before(without, at);
  ASSERT_GT(test::xoff_count(before), 10u);
  EXPECT_EQ(test::lines_before(with, at), before);  // every PAUSE frame and XOFF decision before 100 us
  uint64_t xoffs_after = 0, only_new_value = 0;
  for (const test::admission& a : test::admissions(with)) {
    if (a.at_ps < at) {
      EXPECT_EQ(a.xoff, a.shared + a.bytes >= old_xoff) << "at " << a.at_ps << " ps";
    }
    if (a.at_ps <= at) continue;
    EXPECT_EQ(a.xoff, a.shared + a.bytes >= new_xoff) << "at " << a.at_ps << " ps";
    xoffs_after += a.xoff;
    only_new_value += a.xoff && a.shared + a.bytes < old_xoff;
  }
  EXPECT_GT(xoffs_after, 100u);
  EXPECT_GT(only_new_value, 0u);  // the first decisions after the write already pause at the new value
  EXPECT_NE(with, without);
}

TEST(RegisterLive, APfcThresholdWrittenAtTimeZeroEqualsTheValueInTheScenario) {
  const std::string set_in_scenario = test::in_child([] {
    return test::run_logged_incast({{"sw0.port*.pfc.xoff", "24KiB"}}, [](simulation&, timed_callbacks&) {});
  });
  EXPECT_EQ(incast_with_xoff_written(0), set_in_scenario);  // every PAUSE frame, XOFF decision and the summary
}

namespace {
// The dumbbell under DCQCN, the bottleneck's (sw0 port 4, class 3) ECN_KMIN written with
// `bytes` at `at_ps` (none: bytes 0).
std::string dumbbell_with_kmin_written(uint32_t bytes, uint64_t at_ps) {
  std::unique_ptr<test::timed_accesses> writer;
  const std::string out = test::run_logged_dumbbell("dcqcn", {}, [&](simulation& sim, timed_callbacks&) {
    if (!bytes) return;
    switch_model& sw = *sim.fabric_model().switches[0];
    writer = std::make_unique<test::timed_accesses>("kmin_writer", sw.registers);
    writer->accesses.push_back({at_ps, sw.registers.bank().address_of("switch_port[4].ECN_KMIN[3]"), bytes, true});
  });
  if (bytes) {
    EXPECT_EQ(writer->accesses[0].status, tlm::TLM_OK_RESPONSE);
  }
  return out;
}
}  // namespace

// ECN Kmin is read at each frame: written above any depth the queue reaches at 100 us, the
// marking stops from the write on, and not before.
TEST(RegisterLive, AnEcnKminWrittenAt100usTakesEffectThenAndOnlyThen) {
  constexpr uint64_t at = 100 * us_ps;
  const std::string without = test::in_child([] { return dumbbell_with_kmin_written(0, 0); });
  const std::string with = dumbbell_with_kmin_written(64u << 20, at);
  const std::string before = test::lines_before(without, at);
  ASSERT_GT(test::marks(before, 0, at), 10u);
  EXPECT_EQ(test::lines_before(with, at), before);
  EXPECT_GT(test::marks(without, at, 2000 * us_ps), 10u);
  EXPECT_EQ(test::marks(with, at, 2000 * us_ps), 0u);
}

TEST(RegisterLive, AnEcnKminWrittenAtTimeZeroEqualsTheValueInTheScenario) {
  const std::string set_in_scenario = test::in_child([] {
    return test::run_logged_dumbbell("dcqcn", {{"sw0.port4.prio3.ecn.kmin", "20000B"}},
                                     [](simulation&, timed_callbacks&) {});
  });
  const std::string written = dumbbell_with_kmin_written(20000, 0);
  EXPECT_GT(test::marks(written, 0, 2000 * us_ps), 10u);
  EXPECT_EQ(written, set_in_scenario);
}

// PFC frames each sw0 port sent up to t, read at t = 150, 300, ... us: the count of the frames
// the log saw on the wire up to then (r2c: each read counts from the previous one).
TEST(RegisterLive, ACounterReadAtATimeCountsTheEventsUpToThen) {
  std::unique_ptr<test::timed_accesses> reader;
  const std::string log = test::run_logged_incast({}, [&](simulation& sim, timed_callbacks&) {
    switch_model& sw = *sim.fabric_model().switches[0];
    reader = std::make_unique<test::timed_accesses>("counter_reader", sw.registers);
    for (uint64_t t = 150 * us_ps + 77; t < 2000 * us_ps; t += 150 * us_ps)
      for (int port : {0, 5, 16})
        reader->accesses.push_back(
            {t, sw.registers.bank().address_of("switch_port[" + std::to_string(port) + "].PFC_FRAMES_SENT_LO"), 0,
             false});
  });
  std::map<int, uint64_t> read_total;
  uint64_t checked = 0;
  for (const auto& a : reader->accesses) {
    ASSERT_EQ(a.status, tlm::TLM_OK_RESPONSE);
    const int port = static_cast<int>((a.address - 0x10000) / 0x1000);
    read_total[port] += a.value;
    uint64_t frames = 0;  // "<time> frame <port> <class> <quanta>", one class per frame here
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
      std::istringstream f(line);
      uint64_t at;
      std::string what;
      int p;
      if (f >> at >> what >> p && what == "frame" && p == port && at <= a.at_ps) ++frames;
    }
    EXPECT_EQ(read_total[port], frames) << "port " << port << " at " << a.at_ps << " ps";
    checked += frames > 0;
  }
  EXPECT_GT(checked, 10u);
}
