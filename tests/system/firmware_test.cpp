// Congestion-control firmware against the HAL (docs/cosimulation.md): the shipped DCQCN firmware
// against the built-in reaction point, the service-time model, and faulty firmware
// (tests/firmware/faulty.c) stopping the run with one line.
#include <cmath>
#include <map>
#include <sstream>

#include "models/core/probe.h"
#include "tests/support/harness.h"

namespace sluice {
namespace {
const uint64_t us_ps = 1'000'000;

std::string faulty(const std::string& fault) {
  return std::string(SLUICE_TEST_FIRMWARE_DIR) + "/libfw_" + fault + ".so";
}

// dumbbell-dcqcn (four DCQCN flows joining 1 ms apart), with `sets`, until `until`: every rate
// change "<ps> <nic> <flow> <bit/s>", then every flow's bytes sent and received.
std::string dcqcn_rate_log(std::vector<std::pair<std::string, std::string>> sets, const std::string& until) {
  run_options o;
  o.sets = std::move(sets);
  o.until = parse_time(until, "until");
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-dcqcn.yaml")), o);
  std::ostringstream log;
  probe_registry::instance().subscribe("h*.rate_change", [&](const probe_point& p, const probe_event& e) {
    log << e.time_ps << ' ' << p.name() << ' ' << e.flow_id << ' ' << e.value << '\n';
  });
  sim.run();
  const nlohmann::json s = sim.summary();
  for (const auto& f : s["flows"]) log << "flow " << f.dump() << '\n';
  return log.str();
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST(Firmware, TheDcqcnFirmwareGivesTheBuiltInRateChangesBitForBit) {
  const std::string built_in = test::in_child([] { return dcqcn_rate_log({}, "80ms"); });
  const std::string firmware = dcqcn_rate_log({{"h*.firmware", "dcqcn"}}, "80ms");
  ASSERT_GT(lines(built_in), 1000u) << built_in.substr(0, 400);
  EXPECT_EQ(firmware, built_in);
}

TEST(Firmware, WithLatencyARateChangesExactlyThatLongAfterTheCnp) {
  run_options o;
  o.sets = {{"h*.firmware", "dcqcn"}, {"h*.firmware.latency", "cnp=5us"}};
  o.until = parse_time("1200us", "until");
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-dcqcn.yaml")), o);
  std::vector<uint64_t> cnps, changes;
  probe_registry::instance().subscribe("h0.feedback_received",
                                       [&](const probe_point&, const probe_event& e) { cnps.push_back(e.time_ps); });
  probe_registry::instance().subscribe("h0.rate_change",
                                       [&](const probe_point&, const probe_event& e) { changes.push_back(e.time_ps); });
  sim.run();
  ASSERT_GE(cnps.size(), 2u);
  ASSERT_GE(changes.size(), 2u);
  // The first cuts: no rate change before the first CNP, each cut 5 us after its CNP.
  EXPECT_EQ(changes[0], cnps[0] + 5 * us_ps);
  EXPECT_EQ(changes[1], cnps[1] + 5 * us_ps);
}

TEST(Firmware, AFullQueueCoalescesFeedbackPerFlowAndCountsIt) {
  // Every event (each frame's TX included) costs 20 us on one unit behind a queue of 4.
  run_options o;
  o.sets = {{"h*.firmware", "dcqcn"}, {"h*.firmware.latency", "20us"}, {"h*.firmware.queue", "4"}};
  o.until = parse_time("3ms", "until");
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-dcqcn.yaml")), o);
  sim.run();
  const nlohmann::json s = sim.summary();
  EXPECT_GT(test::counter(s, "h0.firmware.coalesced"), 1000.0);
  EXPECT_EQ(test::counter(s, "h0.firmware.queue_peak"), 4.0);
  EXPECT_GT(test::counter(s, "h0.firmware.cnps"), 0.0);
}

TEST(Firmware, ItsParametersAreNicParametersCheckedAgainstTheirRange) {
  const auto r = test::run_cli("params " + test::scenario_path("dumbbell-dcqcn.yaml") +
                               " --set h0.firmware=dcqcn --match 'h0.firmware.*'");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* p : {"h0.firmware.g ", "h0.firmware.latency", "h0.firmware.units", "h0.firmware.queue"})
    EXPECT_NE(r.output.find(p), std::string::npos) << p << " in " << r.output;
  test::expect_cli_error(
      "run " + test::scenario_path("dumbbell-dcqcn.yaml") + " --set h0.firmware=dcqcn --set h0.firmware.g=70000",
      "h0.firmware.g: '70000' is outside the valid range [0, 65536]");
  test::expect_cli_error("run " + test::scenario_path("dumbbell-dcqcn.yaml") +
                             " --set h0.firmware=dcqcn --set h0.firmware.latency=cnp=5parsecs",
                         "h0.firmware.latency");
  test::expect_cli_error("run " + test::scenario_path("dumbbell-dcqcn.yaml") +
                             " --set h0.firmware=dcqcn --set h0.firmware.latency=cpn=5us",
                         "'cpn' is not an event type");
}

// Loading: the file, the symbol, the HAL version, writable globals.
TEST(Firmware, ALibraryThatCannotServeIsRefusedWithOneLine) {
  const std::string run = "run " + test::scenario_path("dumbbell-dcqcn.yaml") + " --until 2ms --set h0.firmware=";
  test::expect_cli_error(run + "/no/such/fw.so", "h0.firmware: '/no/such/fw.so' does not exist");
  test::expect_cli_error(run + "nosuch",
                         "is neither a path to a firmware library nor a shipped example (dcqcn, dcqcn-fixed, timely, "
                         "rtt-probe, control-plane)");
  test::expect_cli_error(run + faulty("no_symbol"), "exports no sluice_fw_descriptor_v1");
  test::expect_cli_error(run + faulty("hal_major"), "was built against HAL 2.1; this Sluice has HAL 1.1");
  test::expect_cli_error(run + faulty("global"), "keeps writable global data (cnps_seen in .bss)");
}

// Running: the message names the NIC, the flow, the event type and the simulated time.
TEST(Firmware, AFaultyHandlerStopsTheRunWithOneLineSayingWhereAndWhen) {
  const std::string run = "run " + test::scenario_path("dumbbell-dcqcn.yaml") + " --until 2ms --set h0.firmware=";
  const std::string where = "h0: firmware 'faulty' flow 0 (";
  for (const auto& [fault, what] :
       std::map<std::string, std::string>{{"crash", "on_event crashed (SIGSEGV)"},
                                          {"rate_zero", "set a rate of 0"},
                                          {"rate_above", "set a rate above the line rate (1048577/1048576)"},
                                          {"error", "on_event returned error 42"},
                                          {"reg_unmapped", "wrote unmapped register 0xfff0 (see `sluice regs nic`)"}}) {
    SCOPED_TRACE(fault);
    test::expect_cli_error(run + faulty(fault), where);
    test::expect_cli_error(run + faulty(fault), ") CNP event at 1.");
    test::expect_cli_error(run + faulty(fault), what);
  }
  test::expect_cli_error(run + faulty("hang") + " --set h0.firmware.watchdog=100ms",
                         "CNP event at 1.0486492ms: on_event ran past the wall-clock watchdog (100 ms)");
  // The one that behaves runs, and so does one that uses the NIC's registers as its header says.
  const auto ok = test::run_cli(run + faulty("none") + " -q");
  EXPECT_EQ(ok.status, 0) << ok.output;
  const auto regs = test::run_cli(run + faulty("registers") + " -q");
  EXPECT_EQ(regs.status, 0) << regs.output;
}

}  // namespace sluice

namespace sluice {
// The RTT-probe template and TIMELY on it: one probe per round trip, answered by the ACK that
// covers the probed frame (dumbbell-timely's receivers acknowledge every frame).
TEST(Firmware, TheTimelyFirmwareReactsToRttProbesWithFixedPointRates) {
  const std::string probes = test::in_child([] {
    run_options o;
    o.sets = {{"h*.firmware", "rtt-probe"}};
    o.until = parse_time("3ms", "until");
    simulation sim(load_scenario_file(test::scenario_path("dumbbell-timely.yaml")), o);
    sim.run();
    const nlohmann::json s = sim.summary();
    return std::to_string(test::counter(s, "h0.firmware.probes")) + " " +
           std::to_string(test::counter(s, "h0.firmware.rtt_samples"));
  });
  double asked = 0, answered = 0;
  std::istringstream(probes) >> asked >> answered;
  EXPECT_GT(answered, 20.0) << probes;
  EXPECT_LE(asked - answered, 1.0) << probes;  // every probe answered but the one in flight
  run_options o;
  o.sets = {{"h*.firmware", "timely"}};
  o.until = parse_time("3ms", "until");
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-timely.yaml")), o);
  std::vector<uint64_t> rates;
  probe_registry::instance().subscribe("h0.rate_change",
                                       [&](const probe_point&, const probe_event& e) { rates.push_back(e.value); });
  sim.run();
  const nlohmann::json s = sim.summary();
  EXPECT_GT(test::counter(s, "h0.firmware.rtt_samples"), 20.0);
  ASSERT_FALSE(rates.empty());
  // A 20-bit fraction of the 10 Gb/s line rate: every rate a multiple of 10e9 / 2^20 (to rounding).
  for (uint64_t r : rates) {
    const double steps = static_cast<double>(r) / (10e9 / (1 << 20));
    EXPECT_NEAR(steps, std::round(steps), 1e-3) << r;
    EXPECT_LE(r, 10'000'000'000ull);
  }
}
}  // namespace sluice

namespace sluice {
namespace {
// A run's output folder, as text to compare: every file byte for byte, the summary without how
// the run was asked for (provenance) and its wall times.
std::string outputs_of(const std::string& scenario, const std::string& sets, const std::string& name) {
  const std::string out = ::testing::TempDir() + "/" + name + "-" + std::to_string(getpid());
  const auto r = test::run_cli("run " + test::scenario_path(scenario) + " --until 5ms -q --out " + out + sets);
  EXPECT_EQ(r.status, 0) << r.output;
  std::string all;
  for (const char* file : {"buffer_occupancy.csv", "flow_rate.csv", "flow_throughput.csv", "link_throughput.csv",
                           "paused_fraction.csv", "queue_depth.csv"})
    all += std::string(file) + "\n" + test::slurp(out + "/" + file);
  nlohmann::json j = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  j["totals"].erase("wall_time_s");
  j["totals"].erase("elaboration_s");
  j.erase("provenance");
  return all + j.dump(1);
}
}  // namespace

// The switches' control plane as firmware: the ECN marking of class 3, the pause time and the
// dynamic threshold written through the registers at time 0 give the run of the same values
// set in the scenario, every output file byte for byte.
TEST(Firmware, TheControlPlaneFirmwareGivesTheScenarioConfiguredRunByteForByte) {
  const std::string in_scenario = outputs_of(
      "dumbbell-dcqcn.yaml",
      " --set 'sw*.port*.prio3.ecn.kmin=20000B' --set 'sw*.port*.prio3.ecn.kmax=100000B'"
      " --set 'sw*.port*.prio3.ecn.pmax=0.0625' --set 'sw*.mmu.alpha=0.25' --set 'sw*.port*.pfc.quanta=32768'",
      "in-scenario");
  const std::string by_firmware = outputs_of(
      "dumbbell-dcqcn.yaml",
      " --set 'sw*.firmware=control-plane' --set 'sw*.firmware.ecn_kmin=20000' --set 'sw*.firmware.ecn_kmax=100000'"
      " --set 'sw*.firmware.ecn_pmax=4096' --set 'sw*.firmware.mmu_alpha=64' --set 'sw*.firmware.pfc_quanta=32768'",
      "by-firmware");
  const std::string by_default = outputs_of("dumbbell-dcqcn.yaml", "", "by-default");
  EXPECT_GT(in_scenario.size(), 10000u);
  EXPECT_EQ(by_firmware, in_scenario);
  EXPECT_NE(by_default, in_scenario);  // the settings matter
}

// A switch's interrupt: PAUSE_SENT enabled by the control-plane firmware, each XOFF the incast's
// switch sends raises it unless it is raised already (ports pausing within the latency share
// one), and the handler clears it.
TEST(Firmware, ASwitchsPauseInterruptReachesItsControlPlaneFirmware) {
  const std::string run =
      "run " + test::scenario_path("incast.yaml") + " --until 1ms -q --set sw0.firmware=control-plane";
  const auto pause_irqs = [&](const std::string& enable) {
    const std::string out = ::testing::TempDir() + "/irq" + enable + "-" + std::to_string(getpid());
    const auto r = test::run_cli(run + " --set sw0.firmware.irq_enable=" + enable + " --out " + out);
    EXPECT_EQ(r.status, 0) << r.output;
    const nlohmann::json s = nlohmann::json::parse(test::slurp(out + "/summary.json"));
    double xoffs = 0;
    for (const auto& [name, value] : s["counters"].items())
      if (name.rfind("sw0.port", 0) == 0 && name.size() > 11 && name.substr(name.size() - 11) == ".pause_sent")
        xoffs += value.get<double>();
    return std::make_pair(test::counter(s, "sw0.firmware.pause_irqs"), xoffs);
  };
  const auto [irqs, xoffs] = pause_irqs("1");
  EXPECT_GT(irqs, 50.0);
  EXPECT_LE(irqs, xoffs);
  EXPECT_EQ(pause_irqs("2").first, 0.0);  // DROP only: the incast drops nothing
}

}  // namespace sluice

namespace sluice {
// The fixed-point DCQCN firmware: every rate it sets is a whole number of line rate / 2^20, and
// over 20 ms of dumbbell-dcqcn the fabric carries within 1 % of what the built-in carries (the
// per-flow and trace differences are in docs/cosimulation.md).
TEST(Firmware, TheFixedPointDcqcnFirmwareSetsTwentyBitRatesAndCarriesWhatTheBuiltInDoes) {
  const auto delivered = [](const nlohmann::json& s) {
    double bytes = 0;
    for (const auto& f : s["flows"]) bytes += f["rx_bytes"].get<double>();
    return bytes;
  };
  const std::string built_in = test::in_child([&] {
    run_options o;
    o.until = parse_time("20ms", "until");
    simulation sim(load_scenario_file(test::scenario_path("dumbbell-dcqcn.yaml")), o);
    sim.run();
    return std::to_string(delivered(sim.summary()));
  });
  run_options o;
  o.sets = {{"h*.firmware", "dcqcn-fixed"}};
  o.until = parse_time("20ms", "until");
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-dcqcn.yaml")), o);
  std::vector<uint64_t> rates;
  probe_registry::instance().subscribe("h*.rate_change",
                                       [&](const probe_point&, const probe_event& e) { rates.push_back(e.value); });
  sim.run();
  const double step = 40e9 / (1u << 20);
  ASSERT_GT(rates.size(), 100u);
  for (uint64_t r : rates) ASSERT_NEAR(std::round(static_cast<double>(r) / step) * step, static_cast<double>(r), 1.0);
  const double fixed = delivered(sim.summary()), floating = std::stod(built_in);
  EXPECT_NEAR(fixed / floating, 1.0, 0.01) << fixed << " vs " << floating;
  EXPECT_GT(test::counter(sim.summary(), "h3.firmware.cuts"), 0.0);
}
}  // namespace sluice
