// strict-dwrr-rtl in fabric runs: the same summaries as the C++ strict-dwrr at zero added
// latency (every decision also checked in lockstep), the mutant stopped by the lockstep checker,
// and the decision latency as model time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "models/core/probe.h"
#include "models/rtl/strict_dwrr_rtl.h"
#include "models/switch/switch_policies.h"
#include "tests/rtl/first_report.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
// The mutation test's policy: the broken RTL build behind the same wrapper. Registered only in
// this test executable.
const policy_registrar<scheduler_policies> mutant_reg{
    "strict-dwrr-rtl-mutant",
    "test only: strict-dwrr-rtl with one wrong bit in the DWRR deficit update",
    [](const scheduler_config& c, const sc_core::sc_object* port) -> std::unique_ptr<scheduler_if> {
      return std::make_unique<strict_dwrr_rtl>(c, *port, sched_rtl_build::mutant);
    },
    {"sched", "weight", "dwrr.quantum"}};

std::string rtl_scenario(const std::string& name) { return std::string(SLUICE_SOURCE_DIR) + "/tests/rtl/" + name; }

// The summary with what may differ between two builds of the same run left out: wall clock,
// provenance (the overrides differ by the scheduler's name) and the RTL's own counters.
nlohmann::json comparable(const std::string& dir, uint64_t* decisions = nullptr) {
  nlohmann::json j = nlohmann::json::parse(test::slurp(dir + "/summary.json"));
  j["totals"].erase("wall_time_s");
  j["totals"].erase("elaboration_s");
  j.erase("provenance");
  nlohmann::json& counters = j["counters"];
  for (auto it = counters.begin(); it != counters.end();) {
    if (it.key().find(".rtl_") == std::string::npos) {
      ++it;
      continue;
    }
    if (decisions && it.key().find(".rtl_decisions") != std::string::npos) *decisions += it.value().get<uint64_t>();
    it = counters.erase(it);
  }
  return j;
}

// Runs `scenario` with every switch port's scheduler strict-dwrr, then strict-dwrr-rtl in
// lockstep with the reference; the summaries must be identical. Returns the RTL decisions.
uint64_t expect_identical(const std::string& scenario, const std::string& extra = "") {
  const std::string base = ::testing::TempDir() + "/rtl-eq-" + std::to_string(getpid());
  auto cpp =
      test::run_cli("run " + scenario + extra + " -q --set 'sw*.port*.scheduler=strict-dwrr' --out " + base + "c");
  EXPECT_EQ(cpp.status, 0) << cpp.output;
  auto rtl = test::run_cli("run " + scenario + extra +
                           " -q --set 'sw*.port*.scheduler=strict-dwrr-rtl' --set 'sw*.port*.rtl.check=lockstep' "
                           "--out " +
                           base + "r");
  EXPECT_EQ(rtl.status, 0) << rtl.output;
  uint64_t decisions = 0;
  const nlohmann::json a = comparable(base + "c"), b = comparable(base + "r", &decisions);
  EXPECT_EQ(a, b) << scenario;
  EXPECT_GT(a["totals"]["packet_hops"].get<uint64_t>(), 1000u);
  std::cout << scenario << ": " << decisions << " RTL decisions, identical summaries\n";
  return decisions;
}
}  // namespace

TEST(RtlFabric, IncastSummaryIsTheCppSchedulers) {
  EXPECT_GT(expect_identical(test::scenario_path("incast.yaml"), " --until 2ms"), 5000u);
}

TEST(RtlFabric, DwrrUnequalWeightsSummaryIsTheCppSchedulers) {
  EXPECT_GT(expect_identical(rtl_scenario("dwrr-weights.yaml")), 2000u);
}

TEST(RtlFabric, InfinibandSixteenVlSummaryIsTheCppSchedulers) {
  EXPECT_GT(expect_identical(rtl_scenario("ib-16vl.yaml")), 2000u);
}

TEST(RtlFabric, TheLockstepCheckerStopsTheMutantAtItsFirstMismatch) {
  // The CLI does not know the test's policy: the run is in this process.
  auto sim = test::make_sim(test::slurp(rtl_scenario("dwrr-weights.yaml")),
                            {{"sw0.port8.scheduler", "strict-dwrr-rtl-mutant"}, {"sw0.port8.rtl.check", "lockstep"}});
  ASSERT_EQ(chdir(::testing::TempDir().c_str()), 0);
  const std::string message = test::first_report(*sim);
  ASSERT_FALSE(message.empty()) << "the mutant ran to the end";
  // One line: the instance, the time, the inputs, both answers and the waveform.
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind("sw0.port8: strict-dwrr-rtl lockstep mismatch at ", 0), 0u) << message;
  for (const char* part : {" (decision ", "eligible 0x", "heads [", "rtl queue ", "reference queue ",
                           "waveform sw0.port8.rtl-mismatch.vcd"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
  const std::string vcd = test::slurp(::testing::TempDir() + "/sw0.port8.rtl-mismatch.vcd");
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  std::cout << message << '\n';
}

namespace {
// One 10 Gb/s flow of 1500-byte frames through sw0 (40 Gb/s links): frames 1.2 us apart, so no
// frame waits for another and each dequeue is the frame's pipeline plus the decision latency.
// Returns dequeue minus enqueue time of every frame at sw0.port1, in ps.
std::vector<uint64_t> egress_delays(std::vector<std::pair<std::string, std::string>> sets) {
  auto sim = test::make_sim(
      "platform:\n  kind: custom\n  switches: [sw0]\n  nics: [a, b]\n"
      "  links: [{a: a, b: sw0, rate: 40Gbps, delay: 1us}, {a: sw0, b: b, rate: 40Gbps, delay: 1us}]\n"
      "traffic: [{kind: constant, src: a, dst: b, rate: 10Gbps, priority: 3}]\n"
      "params: {\"a.mtu\": 1500B}\nrun: {until: 30us}\n",
      std::move(sets));
  std::map<uint64_t, uint64_t> enqueued;
  std::vector<uint64_t> delays;
  probe_registry::instance().subscribe("sw0.port1.egress.enqueue", [&](const probe_point&, const probe_event& e) {
    enqueued[e.frame->id()] = e.time_ps;
  });
  probe_registry::instance().subscribe("sw0.port1.egress.dequeue", [&](const probe_point&, const probe_event& e) {
    delays.push_back(e.time_ps - enqueued.at(e.frame->id()));
  });
  sim->run();
  return delays;
}
}  // namespace

TEST(RtlLatency, AtZeroCyclesEachDequeueIsThePipelineAlone) {
  const auto delays = egress_delays({{"sw0.port1.scheduler", "strict-dwrr-rtl"}});
  ASSERT_GE(delays.size(), 20u);
  for (uint64_t d : delays) EXPECT_EQ(d, 500'000u);  // the 500 ns pipeline
}

TEST(RtlLatency, ThreeCyclesOfOneGigahertzStartEachDequeueThreeNanosecondsLater) {
  const auto delays = egress_delays({{"sw0.port1.scheduler", "strict-dwrr-rtl"},
                                     {"sw0.port1.rtl.decision_cycles", "3"},
                                     {"sw0.port1.rtl.clock", "1ns"}});
  ASSERT_GE(delays.size(), 20u);
  for (uint64_t d : delays) EXPECT_EQ(d, 503'000u);
}

TEST(RtlLatency, TheClockParameterScalesTheCycles) {
  const auto delays = egress_delays({{"sw0.port1.scheduler", "strict-dwrr-rtl"},
                                     {"sw0.port1.rtl.decision_cycles", "3"},
                                     {"sw0.port1.rtl.clock", "2ns"}});  // 500 MHz
  ASSERT_GE(delays.size(), 20u);
  for (uint64_t d : delays) EXPECT_EQ(d, 506'000u);
}

TEST(RtlLatency, ADecisionLongerThanItsCyclesIsAnError) {
  // A 9000-byte head against a 64-byte quantum takes the block 141 cycles; 3 are declared.
  auto sim =
      test::make_sim(test::one_switch("9000B", "run: {until: 20us}\n"), {{"a.mtu", "9000B"},
                                                                         {"sw0.port1.scheduler", "strict-dwrr-rtl"},
                                                                         {"sw0.port1.dwrr.quantum", "64B"},
                                                                         {"sw0.port1.rtl.decision_cycles", "3"}});
  const std::string message = test::first_report(*sim);
  EXPECT_NE(message.find("sw0.port1: strict-dwrr-rtl took "), std::string::npos) << message;
  EXPECT_NE(message.find(" cycles, more than rtl.decision_cycles = 3"), std::string::npos) << message;
}

namespace {
// The busy fraction of sw0->b in tests/rtl/small-frames.yaml (64-byte frames at 100 Gb/s) with a
// decision latency of `cycles` at 1 GHz, each decision asked when the wire frees or, `ahead`, as
// the frame before starts.
double small_frames_utilization(int cycles, bool ahead = false) {
  const std::string out =
      ::testing::TempDir() + "/rtl-small-" + std::to_string(cycles) + (ahead ? "a-" : "-") + std::to_string(getpid());
  auto r = test::run_cli("run " + std::string(SLUICE_SOURCE_DIR) + "/tests/rtl/small-frames.yaml -q --set " +
                         "sw0.port1.rtl.decision_cycles=" + std::to_string(cycles) +
                         (ahead ? " --set sw0.port1.scheduler_ahead=true" : "") + " --out " + out);
  EXPECT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  for (const auto& link : j["links"])
    if (link["name"] == "sw0->b") return link["utilization"].get<double>();
  ADD_FAILURE() << "no link sw0->b";
  return 0;
}
}  // namespace

TEST(RtlLatency, ADecisionThatTakesTimeCostsThroughputInTheSummary) {
  // The port asks when the wire is free, so a 64-byte frame (F = 5.12 ns) leaves every F + L: the
  // summary's link utilization is F / (F + L) of the zero-latency run's (which starts after the
  // first frame's 1 us link and 500 ns pipeline: 0.9925 of the 200 us).
  const double at_zero = small_frames_utilization(0);
  EXPECT_NEAR(at_zero, 0.9925, 0.0001);
  for (int cycles : {3, 10}) {
    const double f = 5.12, expected = f / (f + cycles);  // 0.6305, 0.3386
    EXPECT_NEAR(small_frames_utilization(cycles) / at_zero, expected, 0.0002) << cycles << " cycles";
  }
}

TEST(RtlLatency, ADecisionTakenAheadCostsThroughputOnlyBeyondAFrameTime) {
  // scheduler_ahead: each decision asked as the frame before starts on the wire. 3 ns fits inside
  // the 5.12 ns frame: the rate of the zero-latency run but for the first decision's 3 ns (one
  // frame fewer); 10 ns does not: a frame every L, F / L = 0.512 of it.
  const double at_zero = small_frames_utilization(0);
  EXPECT_NEAR(small_frames_utilization(3, true) / at_zero, 1.0, 0.0001);
  EXPECT_NEAR(small_frames_utilization(10, true) / at_zero, 5.12 / 10, 0.0002);
}

TEST(RtlFabric, TraceWritesTheBlocksWaveformsInModelPicoseconds) {
  // Four 1500-byte frames: four decisions of one edge each, at 1 ns after each request.
  ASSERT_EQ(chdir(::testing::TempDir().c_str()), 0);
  std::remove("sw0.port1.rtl.vcd");
  {
    auto sim = test::make_sim(test::one_switch("6000B", "run: {until: 20us}\n"),
                              {{"sw0.port1.scheduler", "strict-dwrr-rtl"}, {"sw0.port1.rtl.trace", "true"}});
    sim->run();
  }
  std::ifstream in(::testing::TempDir() + "/sw0.port1.rtl.vcd");
  ASSERT_TRUE(in) << "no waveform";
  std::string line, header;
  std::vector<uint64_t> times;
  while (std::getline(in, line)) {
    if (line.rfind("$timescale", 0) == 0) header = line;
    if (!line.empty() && line[0] == '#') times.push_back(std::stoull(line.substr(1)));
  }
  EXPECT_EQ(header, "$timescale 1ps $end");
  // Rising and falling edge of each of the four decisions (plus the empty dump at open).
  ASSERT_GE(times.size(), 8u);
  EXPECT_EQ(times[times.size() - 1] - times[times.size() - 2], 500u);  // half a 1 ns period
  EXPECT_GT(times.back(), 2'000'000u);  // after the first frame has cleared the pipeline (ps)
}
