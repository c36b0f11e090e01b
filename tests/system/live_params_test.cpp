// Parameters that change during a run: a run-time write (param_registry::set_live, what a
// Python callback's live.set calls) reaches the owning model through its on-change hook and
// takes effect at the simulated time of the write, and only then: a switch's PFC threshold, and
// a congestion-control gain that its reaction points keep in a cached configuration. A fixed
// parameter refuses.
//
// Each comparison needs two runs and SystemC elaborates once per process, so the reference run
// is made in a forked child (before this process elaborates) and sent back as text.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <sstream>

#include "models/core/params.h"
#include "models/core/probe.h"
#include "models/protocol/pfc_frame.h"
#include "platforms/timed_callbacks.h"
#include "tests/support/harness.h"
#include "tests/support/live_runs.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using test::admission;
using test::admissions;
using test::cuts;
using test::lines_before;
using test::marks;
using test::xoff_count;

namespace {

constexpr uint64_t ms_ps = 1000000000ull;
constexpr uint64_t old_xoff = 48 * 1024, new_xoff = 24 * 1024;

// The incast with static thresholds (every sw0 port's PFC logged), 2 ms, with the given
// overrides and, with `write`, a run-time write of every sw0 port's pfc.xoff to
// 24 KiB (half its 48 KiB default) at `write_at`. Returns the log of PFC frames and
// admissions, then the summary.
std::string run_incast(std::vector<std::pair<std::string, std::string>> sets, bool write, uint64_t write_at) {
  std::size_t matched = 0;
  const std::string out = test::run_logged_incast(std::move(sets), [&](simulation&, timed_callbacks& calls) {
    if (write)
      calls.add(write_at, 0, [&] { matched = param_registry::instance().set_live("sw0.port*.pfc.xoff", "24KiB"); });
  });
  if (write) {
    EXPECT_EQ(matched, 17u);  // every port of the incast's switch
  }
  return out;
}

}  // namespace

TEST(LiveParams, AWriteAtOneMillisecondTakesEffectThenAndOnlyThen) {
  const std::string without = test::in_child([] { return run_incast({}, false, 0); });
  const std::string with = run_incast({}, true, ms_ps);
  // Every PAUSE frame and every XOFF decision before 1 ms is the same, at the same time.
  const std::string before = lines_before(without, ms_ps);
  ASSERT_GT(xoff_count(before), 100u);
  EXPECT_EQ(lines_before(with, ms_ps), before);
  // Each decision follows the threshold of its time: 48 KiB before the write, 24 KiB after it
  // (at exactly 1 ms the order of the write and the admissions is not specified).
  uint64_t xoffs_after = 0, only_new_value = 0;
  for (const admission& a : admissions(with)) {
    if (a.at_ps < ms_ps) {
      EXPECT_EQ(a.xoff, a.shared + a.bytes >= old_xoff) << "at " << a.at_ps << " ps";
    }
    if (a.at_ps <= ms_ps) continue;
    EXPECT_EQ(a.xoff, a.shared + a.bytes >= new_xoff) << "at " << a.at_ps << " ps";
    xoffs_after += a.xoff;
    only_new_value += a.xoff && a.shared + a.bytes < old_xoff;  // the old value would not pause
  }
  EXPECT_GT(xoffs_after, 100u);
  EXPECT_GT(only_new_value, 0u);
  EXPECT_NE(with, without);
}

TEST(LiveParams, AWriteAtTimeZeroEqualsSettingTheValueInTheScenario) {
  const std::string set_in_scenario = test::in_child([] {
    return run_incast({{"sw0.port*.pfc.xoff", "24KiB"}}, false, 0);
  });
  const std::string written = run_incast({}, true, 0);
  EXPECT_GT(xoff_count(written), 100u);
  EXPECT_EQ(written, set_in_scenario);  // every PAUSE frame, XOFF decision and the whole summary
}

TEST(LiveParams, AFixedParameterRefusesARunTimeWriteWithOneLine) {
  auto sim = test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 10KB, priority: 3}", ""));
  param_registry& reg = param_registry::instance();
  try {
    reg.set_live("a.mtu", "500B");
    FAIL() << "a fixed parameter took a run-time write";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "a.mtu: fixed after elaboration, it cannot change during a run (not a live parameter)");
  }
  // All or nothing: "3us" suits the delay but not the rate, so neither changes.
  EXPECT_THROW(reg.set_live("a-b.*", "3us"), config_error);
  EXPECT_EQ(reg.find("a-b.delay")->value_string(), "1us");
  EXPECT_THROW(reg.set_live("*.mtu", "500B"), config_error);
  EXPECT_EQ(reg.find("b.mtu")->value_string(), reg.find("b.mtu")->default_string());
  EXPECT_EQ(reg.set_live("a-b.delay", "2us"), 1u);
  EXPECT_EQ(reg.find("a-b.delay")->value_string(), "2us");
  try {
    reg.set_live("a-b.delay", "2s");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("a-b.delay"), std::string::npos);
  }
}

namespace {
// The dumbbell under `cc`, with a run-time write of `pattern` to `value` at `write_at` (none if
// `value` is empty), logged (tests/support/live_runs.h).
std::string run_dumbbell(const std::string& cc, std::vector<std::pair<std::string, std::string>> sets,
                         const std::string& pattern, const std::string& value, uint64_t write_at,
                         std::size_t expect_matched) {
  std::size_t matched = 0;
  const std::string out = test::run_logged_dumbbell(cc, std::move(sets), [&](simulation&, timed_callbacks& calls) {
    if (!value.empty()) calls.add(write_at, 0, [&] { matched = param_registry::instance().set_live(pattern, value); });
  });
  if (!value.empty()) {
    EXPECT_EQ(matched, expect_matched);
  }
  return out;
}

std::string run_qcn_dumbbell(std::vector<std::pair<std::string, std::string>> sets, const std::string& gd,
                             uint64_t write_at) {
  return run_dumbbell("qcn", std::move(sets), "h*.qcn.gd", gd, write_at, 4);  // h0..h3
}

// DCQCN's congestion point at the bottleneck (sw0 port 4, class 3): its ECN threshold.
std::string run_dcqcn_dumbbell(std::vector<std::pair<std::string, std::string>> sets, const std::string& kmin,
                               uint64_t write_at) {
  return run_dumbbell("dcqcn", std::move(sets), "sw0.port4.prio3.ecn.kmin", kmin, write_at, 1);
}

}  // namespace

TEST(LiveParams, AQcnGainWrittenAtOneMillisecondTakesEffectThenAndOnlyThen) {
  const std::string without = test::in_child([] { return run_qcn_dumbbell({}, "", 0); });
  const std::string with = run_qcn_dumbbell({}, "0", ms_ps);  // gd 0: a CNM no longer cuts
  // Every rate change before 1 ms is the same, at the same time.
  const std::string before = lines_before(without, ms_ps);
  ASSERT_GT(cuts(before, 0, ms_ps), 10u);
  EXPECT_EQ(lines_before(with, ms_ps), before);
  // After it the CNMs keep coming (the reference run keeps cutting) but cut nothing: the cached
  // configuration was refreshed by the write, at its time.
  EXPECT_GT(cuts(without, ms_ps, 2 * ms_ps), 10u);
  EXPECT_EQ(cuts(with, ms_ps, 2 * ms_ps), 0u);
  EXPECT_NE(with, without);
}

TEST(LiveParams, AQcnGainWrittenAtTimeZeroEqualsSettingItInTheScenario) {
  const std::string set_in_scenario = test::in_child([] { return run_qcn_dumbbell({{"h*.qcn.gd", "0.25"}}, "", 0); });
  const std::string written = run_qcn_dumbbell({}, "0.25", 0);
  EXPECT_GT(cuts(written, 0, 2 * ms_ps), 10u);
  EXPECT_EQ(written, set_in_scenario);
}

// A congestion point's threshold, read at each frame: an ECN Kmin written above any depth the
// queue reaches stops the marking from the write on, and not before. (On this dumbbell DCQCN
// marks in the first 300 us, until its cuts drain the bottleneck: the write comes at 150 us.)
TEST(LiveParams, ADcqcnKminWrittenDuringTheRunTakesEffectThenAndOnlyThen) {
  constexpr uint64_t at = 150'000'000ull;
  const std::string without = test::in_child([] { return run_dcqcn_dumbbell({}, "", 0); });
  const std::string with = run_dcqcn_dumbbell({}, "64MiB", at);
  const std::string before = lines_before(without, at);
  ASSERT_GT(marks(before, 0, at), 10u);
  EXPECT_EQ(lines_before(with, at), before);
  EXPECT_GT(marks(without, at, 2 * ms_ps), 10u);
  EXPECT_EQ(marks(with, at, 2 * ms_ps), 0u);
}

TEST(LiveParams, ADcqcnKminWrittenAtTimeZeroEqualsSettingItInTheScenario) {
  const std::string set_in_scenario = test::in_child([] {
    return run_dcqcn_dumbbell({{"sw0.port4.prio3.ecn.kmin", "20KB"}}, "", 0);
  });
  const std::string written = run_dcqcn_dumbbell({}, "20KB", 0);
  EXPECT_GT(marks(written, 0, 2 * ms_ps), 10u);
  EXPECT_EQ(written, set_in_scenario);
}

// ASM: the reaction point's cut limit (read from its cached configuration) and the congestion
// point's set point Qeq are live. With max_decrease 0 from 1 ms, the CNMs keep coming and cut
// nothing; before 1 ms every rate change is the reference run's.
TEST(LiveParams, AnAsmCutLimitWrittenAtOneMillisecondTakesEffectThenAndOnlyThen) {
  const std::string without = test::in_child([] { return run_dumbbell("asm", {}, "", "", 0, 0); });
  const std::string with = run_dumbbell("asm", {}, "h*.asm.max_decrease", "0", ms_ps, 4);
  const std::string before = lines_before(without, ms_ps);
  ASSERT_GT(cuts(before, 0, ms_ps), 10u);
  EXPECT_EQ(lines_before(with, ms_ps), before);
  EXPECT_GT(cuts(without, ms_ps, 2 * ms_ps), 10u);
  EXPECT_EQ(cuts(with, ms_ps, 2 * ms_ps), 0u);
}

TEST(LiveParams, AnAsmQeqWrittenAtTimeZeroEqualsSettingItInTheScenario) {
  const std::string set_in_scenario = test::in_child([] {
    return run_dumbbell("asm", {{"sw0.port4.prio3.asm.qeq", "8KiB"}}, "", "", 0, 0);
  });
  const std::string reference = test::in_child([] { return run_dumbbell("asm", {}, "", "", 0, 0); });
  const std::string written = run_dumbbell("asm", {}, "sw0.port4.prio3.asm.qeq", "8KiB", 0, 1);
  EXPECT_GT(cuts(written, 0, 2 * ms_ps), 10u);
  EXPECT_EQ(written, set_in_scenario);
  EXPECT_NE(written, reference);  // the set point moved the loop
}
