// Settings that do nothing must say so: a params: entry or --set whose every match has no effect
// in the final configuration is a one-line error with the reason its model declares; allowed
// (run_options::allow_inert, run.allow_inert), it is a warning in the summary. Each case below
// is one documented inert case (docs/scenarios.md, "Settings that do nothing"); one simulation
// per test process.
#include <filesystem>

#include "models/core/params.h"
#include "tests/support/harness.h"

namespace sluice {
namespace {

const std::string allow_hint = " (--allow-inert or run.allow_inert: true to run anyway)";

// The error building a scenario (its text) with `sets` gives, or "no error".
std::string error_of_text(const std::string& yaml, std::vector<std::pair<std::string, std::string>> sets = {}) {
  try {
    test::make_sim(yaml, std::move(sets));
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}

// The same for a shipped scenario.
std::string error_of(const std::string& scenario, std::vector<std::pair<std::string, std::string>> sets) {
  return error_of_text(test::slurp(test::scenario_path(scenario)), std::move(sets));
}

// The same under `--cc cc` (every flow runs that scheme).
std::string error_under(const std::string& scenario, const std::string& cc,
                        std::vector<std::pair<std::string, std::string>> sets) {
  run_options o;
  o.cc = cc;
  o.sets = std::move(sets);
  try {
    simulation sim(load_scenario_file(test::scenario_path(scenario)), o);
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}

// `run` (CLI arguments) fails with `line` and the hint; with --allow-inert it runs and warns. The
// allowed run's result.
test::command_result expect_error_then_warning(const std::string& run, const std::string& line) {
  test::command_result r = test::run_cli(run);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "sluice: error: " + line + allow_hint + "\n");
  r = test::run_cli(run + " --allow-inert");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sluice: warning: " + line + "\n"), std::string::npos) << r.output;
  return r;
}

std::string value_of(const std::string& name) { return param_registry::instance().find(name)->value_string(); }

TEST(InertSettings, StaticXoffUnderDynamicThreshold) {
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.port0.pfc.xoff", "96KiB"}}),
            "--set: sw0.port0.pfc.xoff=96KiB has no effect: sw0.mmu.threshold is 'dynamic', which does not read "
            "pfc.xoff" +
                allow_hint);
}

TEST(InertSettings, PatternReportsOnceWithItsMatchCount) {
  EXPECT_EQ(error_of("incast.yaml", {{"sw*.port*.pfc.xoff", "96KiB"}}),
            "--set: sw*.port*.pfc.xoff=96KiB has no effect on any of its 17 matches (sw0.port0.pfc.xoff: "
            "sw0.mmu.threshold is 'dynamic', which does not read pfc.xoff)" +
                allow_hint);
}

TEST(InertSettings, ScenarioParamsAreCheckedToo) {
  EXPECT_EQ(error_of_text(test::slurp(test::scenario_path("incast.yaml")) + "  sw0.mmu.alpha_lossy: 4\n"),
            "params: sw0.mmu.alpha_lossy=4 has no effect: every class is lossless (sw0.prio<k>.lossless = true)" +
                allow_hint);
}

TEST(InertSettings, StaticXoffUnderStaticThresholdTakesEffect) {
  auto sim = test::make_sim(test::slurp(test::scenario_path("incast.yaml")),
                            {{"sw0.mmu.threshold", "static"}, {"sw*.port*.pfc.xoff", "96KiB"}});
  EXPECT_EQ(value_of("sw0.port16.pfc.xoff"), "96KiB");
  EXPECT_TRUE(sim->build_warnings().empty());
}

TEST(InertSettings, AlphaUnderStaticThreshold) {
  EXPECT_EQ(
      error_of("incast.yaml", {{"sw0.mmu.threshold", "static"}, {"sw0.mmu.alpha", "0.5"}}),
      "--set: sw0.mmu.alpha=0.5 has no effect: sw0.mmu.threshold is 'static', which does not read alpha" + allow_hint);
}

TEST(InertSettings, HeadroomWithNoLosslessClass) {
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.prio*.lossless", "false"}, {"sw0.port3.pfc.headroom", "64KiB"}}),
            "--set: sw0.port3.pfc.headroom=64KiB has no effect: no class is lossless (sw0.prio<k>.lossless = "
            "false): nothing pauses" +
                allow_hint);
}

TEST(InertSettings, PfcOnInfinibandPorts) {
  EXPECT_EQ(error_of("ib-incast.yaml", {{"sw0.port1.pfc.xoff", "20KiB"}}),
            "--set: sw0.port1.pfc.xoff=20KiB has no effect: PFC on an InfiniBand port, which has credit flow control" +
                allow_hint);
}

TEST(InertSettings, PfcResponseOnInfinibandNic) {
  EXPECT_EQ(error_of("ib-incast.yaml", {{"h*.pfc.response", "1us"}}),
            "--set: h*.pfc.response=1us has no effect on any of its 16 matches (h0.port0.pfc.response: PFC on an "
            "InfiniBand port, which has credit flow control)" +
                allow_hint);
}

TEST(InertSettings, CreditBufferOfAVlThePortDoesNotOperate) {
  EXPECT_EQ(error_of("ib-incast.yaml", {{"sw0.port0.credit.vls", "4"}, {"sw0.port0.credit.prio6.buffer", "32KiB"}}),
            "--set: sw0.port0.credit.prio6.buffer=32KiB has no effect: VL 6 is not operational "
            "(sw0.port0.credit.vls = 4)" +
                allow_hint);
}

TEST(InertSettings, WeightsUnderRoundRobin) {
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.port16.scheduler", "round-robin"}, {"sw0.port16.prio3.weight", "4"}}),
            "--set: sw0.port16.prio3.weight=4 has no effect: sw0.port16.scheduler is 'round-robin', which does not "
            "read weight" +
                allow_hint);
}

TEST(InertSettings, WeightOfAStrictClass) {
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.port16.prio3.sched", "strict"}, {"sw0.port16.prio3.weight", "4"}}),
            "--set: sw0.port16.prio3.weight=4 has no effect: sw0.port16.prio3.sched is 'strict': weights share the "
            "rest among the dwrr classes" +
                allow_hint);
}

TEST(InertSettings, HighLimitUnlessVlArbitration) {
  EXPECT_EQ(error_of("ib-incast.yaml", {{"sw0.port16.scheduler", "strict-dwrr"}, {"sw0.port16.vlarb.high_limit", "8"}}),
            "--set: sw0.port16.vlarb.high_limit=8 has no effect: sw0.port16.scheduler is 'strict-dwrr', which does "
            "not read vlarb.high_limit" +
                allow_hint);
}

TEST(InertSettings, ReactionPointOfANicThatSendsNothing) {
  EXPECT_EQ(error_of("incast.yaml", {{"r0.rp", "dcqcn"}}),
            "--set: r0.rp=dcqcn has no effect: r0 sends no flow" + allow_hint);
}

TEST(InertSettings, RedThresholdsOfTcdWithoutRedMarking) {
  EXPECT_EQ(error_of("tcd-victim.yaml", {{"sw*.port*.prio*.tcd.kmin", "10KB"}}).substr(0, 60),
            "--set: sw*.port*.prio*.tcd.kmin=10KB has no effect on any of");
  EXPECT_NE(
      error_of("tcd-victim.yaml", {{"sw*.port*.prio*.tcd.kmin", "10KB"}}).find("tcd.ce_marking is 'all', not 'red'"),
      std::string::npos);
}

TEST(InertSettings, QcnSonarTimersWithoutSonar) {
  EXPECT_EQ(error_of("incast.yaml", {{"h0.rp", "qcn"}, {"h0.qcn.sonar_wait", "2ms"}}),
            "--set: h0.qcn.sonar_wait=2ms has no effect: qcn.sonar is false" + allow_hint);
}

TEST(InertSettings, WatchdogTimesWhileTheWatchdogIsOff) {
  // sw0.port4 faces sw1 (dumbbell), which pauses it.
  EXPECT_EQ(
      error_of("dumbbell.yaml", {{"sw0.port4.pfc.watchdog.detect", "100us"}}),
      "--set: sw0.port4.pfc.watchdog.detect=100us has no effect: sw0.port4.pfc.watchdog.action is 'off'" + allow_hint);
  EXPECT_EQ(error_of("dumbbell.yaml",
                     {{"sw0.port*.pfc.watchdog.action", "drop"}, {"sw0.port*.pfc.watchdog.detect", "100us"}}),
            "no error");
}

TEST(InertSettings, TransportAckSettingsWithoutAcks) {
  EXPECT_EQ(error_of("incast.yaml", {{"r0.ack.timer", "5us"}}),
            "--set: r0.ack.timer=5us has no effect: r0.ack.enable is false (no scheme or profile here uses transport "
            "ACKs)" +
                allow_hint);
  // TIMELY switches them on: the same setting then shapes its ACKs.
  EXPECT_EQ(error_of("dumbbell-timely.yaml", {{"*.ack.timer", "5us"}}), "no error");
}

TEST(InertSettings, PatchedTimelySettingsUnderTheOriginalLaw) {
  const std::string e = error_of("dumbbell-timely.yaml", {{"*.timely.patched_beta", "0.01"}});
  EXPECT_NE(e.find("has no effect"), std::string::npos) << e;
  EXPECT_NE(e.find("timely.variant is 'original'"), std::string::npos) << e;
  EXPECT_EQ(error_of("dumbbell-timely.yaml", {{"*.timely.variant", "patched"}, {"*.timely.patched_beta", "0.01"}}),
            "no error");
  const std::string h = error_of("dumbbell-timely.yaml", {{"*.timely.hai_step", "100Mbps"}});
  EXPECT_NE(h.find("timely.profile is 'paper'"), std::string::npos) << h;
}

TEST(InertSettings, ParametersOfASchemeNoFlowUses) {
  // QCN's reaction point (per NIC), congestion point (per port and class) and scheme-wide settings
  // exist only where QCN runs: under --cc dcqcn they name a scheme no flow uses.
  // The scheme-wide one first: the census leaves QCN's scheme-wide settings declared for the rest
  // of the process (one simulation per process; these tests build several).
  const std::string why = " has no effect: it belongs to scheme 'qcn', which no flow of this run uses (--cc dcqcn)";
  EXPECT_EQ(error_under("incast.yaml", "dcqcn", {{"qcn.sonar", "true"}}), "--set: qcn.sonar=true" + why + allow_hint);
  EXPECT_EQ(error_under("incast.yaml", "dcqcn", {{"*.qcn.gd", "0.25"}}), "--set: *.qcn.gd=0.25" + why + allow_hint);
  EXPECT_EQ(error_under("incast.yaml", "dcqcn", {{"sw0.port16.prio3.qcn.qeq", "20KB"}}),
            "--set: sw0.port16.prio3.qcn.qeq=20KB" + why + allow_hint);
  // A role shared by two schemes names both; with no scheme chosen, the message says so.
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.port*.prio3.tcd.max_ton", "10us"}}),
            "--set: sw0.port*.prio3.tcd.max_ton=10us has no effect: it belongs to scheme 'dcqcn+tcd' or "
            "'ib-cca+tcd', which no flow of this run uses (no --cc and no traffic cc:)" +
                allow_hint);
  // Scenario params: are checked the same way.
  EXPECT_EQ(error_of_text(test::slurp(test::scenario_path("incast.yaml")) + "  \"h*.timely.alpha\": 0.5\n"),
            "params: h*.timely.alpha=0.5 has no effect: it belongs to scheme 'timely', which no flow of this run uses "
            "(no --cc and no traffic cc:)" +
                allow_hint);
}

TEST(InertSettings, ParametersOfARoleItsOwnerDoesNotRun) {
  // DCQCN runs, but r0 sends nothing: its reaction point is none, so it has no rp.* settings.
  EXPECT_EQ(error_under("incast.yaml", "dcqcn", {{"r0.rp.g", "0.01"}}),
            "--set: r0.rp.g=0.01 has no effect: it is a parameter of the reaction point 'dcqcn', and r0.rp is "
            "'none'" +
                allow_hint);
}

TEST(InertSettings, APatternThatNamesNothingIsStillUnknown) {
  EXPECT_EQ(error_under("incast.yaml", "dcqcn", {{"*.qcn.gdd", "0.25"}}),
            "--set: *.qcn.gdd: no parameter matches (see `sluice params`)");
  EXPECT_EQ(error_of("incast.yaml", {{"sw9.port0.prio3.qcn.qeq", "20KB"}}),
            "--set: sw9.port0.prio3.qcn.qeq: no parameter matches (see `sluice params`)");
}

TEST(InertSettings, SchemeSettingsAllowedAreWarnings) {
  run_options o;
  o.cc = "dcqcn";
  o.sets = {{"*.qcn.gd", "0.25"}};
  o.allow_inert = true;
  o.until = sc_core::sc_time(20, sc_core::SC_US);
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  const std::string line =
      "--set: *.qcn.gd=0.25 has no effect: it belongs to scheme 'qcn', which no flow of this run uses (--cc dcqcn)";
  ASSERT_EQ(sim.build_warnings(), std::vector<std::string>{line});
  sim.run();
  EXPECT_EQ(sim.summary()["warnings"], nlohmann::json::array({line}));
}

TEST(InertSettings, SchemeSettingsOnTheCommandLine) {
  const std::string run =
      "run " + test::scenario_path("incast.yaml") + " --until 20us --cc dcqcn --set '*.qcn.gd=0.25'";
  const std::string line =
      "--set: *.qcn.gd=0.25 has no effect: it belongs to scheme 'qcn', which no flow of this run uses (--cc dcqcn)";
  expect_error_then_warning(run, line);
}

TEST(InertSettings, PfcGeneratorOfASwitchWithNoLosslessClass) {
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.prio*.lossless", "false"}, {"sw0.port*.pfc.quanta", "1000"}}),
            "--set: sw0.port*.pfc.quanta=1000 has no effect on any of its 17 matches (sw0.port0.pfc.quanta: no class "
            "of sw0 is lossless (sw0.prio<k>.lossless = false): this port sends no PFC frame)" +
                allow_hint);
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.prio*.lossless", "false"}, {"sw0.port3.pfc.refresh", "0.9"}}),
            "--set: sw0.port3.pfc.refresh=0.9 has no effect: no class of sw0 is lossless (sw0.prio<k>.lossless = "
            "false): this port sends no PFC frame" +
                allow_hint);
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.port3.pfc.refresh", "0.9"}}), "no error");
}

TEST(InertSettings, WatchdogOfAPortNothingPauses) {
  // sw0's ports face NICs, which send no PFC: nothing ever pauses them.
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.port0.pfc.watchdog.action", "drop"}}),
            "--set: sw0.port0.pfc.watchdog.action=drop has no effect: h0.port0 sends no PFC frame (no buffer behind "
            "it: a NIC's port): nothing pauses sw0.port0" +
                allow_hint);
  // Between switches the peer pauses, unless it has no lossless class.
  EXPECT_EQ(error_of("dumbbell.yaml", {{"sw*.port*.pfc.watchdog.action", "drop"}}), "no error");
  EXPECT_EQ(error_of("dumbbell.yaml", {{"sw1.prio*.lossless", "false"}, {"sw0.port4.pfc.watchdog.action", "drop"}}),
            "--set: sw0.port4.pfc.watchdog.action=drop has no effect: no class of sw1 is lossless "
            "(sw1.prio<k>.lossless = false): nothing pauses sw0.port4" +
                allow_hint);
  // A NIC's response to pauses, when its switch never pauses.
  EXPECT_EQ(error_of("incast.yaml", {{"sw0.prio*.lossless", "false"}, {"h0.port0.pfc.response", "1us"}}),
            "--set: h0.port0.pfc.response=1us has no effect: no class of sw0 is lossless (sw0.prio<k>.lossless = "
            "false): nothing pauses h0.port0" +
                allow_hint);
}

TEST(InertSettings, LatenciesOfBlocksBoundSplitPhase) {
  // The split-phase blocks bound by hand answer in their own time: the latencies that would make
  // one do nothing.
  auto sim = test::make_sim(test::slurp(test::scenario_path("incast.yaml")));
  switch_model& sw = *sim->fabric_model().switches[0];
  EXPECT_EQ(sw.forwarding_latency.inert_reason(), "");
  EXPECT_EQ(sw.admission_latency.inert_reason(), "");
  struct never_answers final : split_forwarding_if, split_mmu_if {
    void request(tlm::tlm_generic_payload*, int, route_answer_if&) override {}
    void request(tlm::tlm_generic_payload*, int, admission_answer_if&) override {}
  } block;
  sw.bind_split_forwarding(block);
  EXPECT_EQ(sw.forwarding_latency.inert_reason(), "sw0 has forwarding bound by bind_split_forwarding");
  sw.bind_split_mmu(block);
  EXPECT_EQ(sw.admission_latency.inert_reason(), "sw0 has admission bound by bind_split_mmu");
}

TEST(InertSettings, APatternWithOneEffectiveMatchIsFine) {
  // sw1 reads its ports' pfc.xoff (static); sw0's are inert: the pattern as a whole has an effect.
  auto sim = test::make_sim(test::slurp(test::scenario_path("dumbbell.yaml")),
                            {{"sw1.mmu.threshold", "static"}, {"sw*.port*.pfc.xoff", "96KiB"}});
  EXPECT_TRUE(sim->build_warnings().empty());
  EXPECT_EQ(value_of("sw1.port0.pfc.xoff"), "96KiB");
}

TEST(InertSettings, AllowedTheyAreWarningsInTheSummary) {
  run_options o;
  o.sets = {{"sw0.port0.pfc.xoff", "96KiB"}};
  o.allow_inert = true;
  o.until = sc_core::sc_time(20, sc_core::SC_US);
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  const std::string line =
      "--set: sw0.port0.pfc.xoff=96KiB has no effect: sw0.mmu.threshold is 'dynamic', which does not read pfc.xoff";
  ASSERT_EQ(sim.build_warnings(), std::vector<std::string>{line});
  EXPECT_EQ(value_of("sw0.port0.pfc.xoff"), "96KiB");  // still applied: only its effect is nil
  sim.run();
  const nlohmann::json s = sim.summary();
  ASSERT_TRUE(s["warnings"].is_array());
  EXPECT_EQ(s["warnings"][0].get<std::string>(), line);
}

TEST(InertSettings, ScenarioRunAllowInert) {
  std::string yaml = test::slurp(test::scenario_path("incast.yaml"));
  yaml.replace(yaml.find("run:\n"), 5, "run:\n  allow_inert: true\n");
  auto sim = test::make_sim(yaml, {{"sw0.mmu.alpha_lossy", "2"}});
  ASSERT_EQ(sim->build_warnings().size(), 1u);
  EXPECT_EQ(sim->build_warnings()[0],
            "--set: sw0.mmu.alpha_lossy=2 has no effect: every class is lossless (sw0.prio<k>.lossless = true)");
}

TEST(InertSettings, CommandLineErrorAndWarning) {
  const std::string run =
      "run " + test::scenario_path("incast.yaml") + " --until 20us --set 'sw0.port0.pfc.xoff=96KiB'";
  const std::string line =
      "--set: sw0.port0.pfc.xoff=96KiB has no effect: sw0.mmu.threshold is 'dynamic', which does not read pfc.xoff";
  const test::command_result r = expect_error_then_warning(run, line);
  EXPECT_NE(r.output.find("WARNING: " + line + "\n"), std::string::npos) << r.output;  // the summary table
  EXPECT_EQ(test::run_cli("stats " + test::scenario_path("incast.yaml") + " --allow-inert").output,
            "sluice: error: --allow-inert: applies to 'run' and 'params', not 'stats'\n");
}

TEST(InertSettings, EveryShippedScenarioHasNone) {
  // Run the loader's check on each shipped scenario through the CLI's listing (one process each).
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::scenario_path(""))) {
    if (entry.path().extension() != ".yaml") continue;
    const test::command_result r = test::run_cli("params " + entry.path().string() + " --match '*.mtu'");
    EXPECT_EQ(r.status, 0) << entry.path() << ": " << r.output;
    ++checked;
  }
  EXPECT_GE(checked, 25u);
}

}  // namespace
}  // namespace sluice
