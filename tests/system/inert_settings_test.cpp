// Settings that do nothing must say so: a params: entry or --set whose every match has no effect
// in the final configuration is a one-line error with the reason its model declares; allowed
// (run_options::allow_inert, run.allow_inert), it is a warning in the summary. Each case below
// is one documented inert case (docs/scenarios.md, "Settings that do nothing"); one simulation
// per test process.
#include "models/core/params.h"
#include "tests/support/harness.h"

namespace sluice {
namespace {

const std::string allow_hint = " (--allow-inert or run.allow_inert: true to run anyway)";

// The error building `scenario` (a shipped file) with `sets` gives, or "no error".
std::string error_of(const std::string& scenario, std::vector<std::pair<std::string, std::string>> sets) {
  try {
    test::make_sim(test::slurp(test::scenario_path(scenario)), std::move(sets));
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
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
  const std::string yaml = test::slurp(test::scenario_path("incast.yaml")) + "  sw0.mmu.alpha_lossy: 4\n";
  try {
    test::make_sim(yaml);
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "params: sw0.mmu.alpha_lossy=4 has no effect: every class is lossless "
              "(sw0.prio<k>.lossless = true)" +
                  allow_hint);
  }
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
  const std::string e = error_of("incast.yaml", {{"sw0.port*.pfc.watchdog.detect", "100us"}});
  EXPECT_NE(e.find("pfc.watchdog.action is 'off'"), std::string::npos) << e;
  EXPECT_EQ(
      error_of("incast.yaml", {{"sw0.port*.pfc.watchdog.action", "drop"}, {"sw0.port*.pfc.watchdog.detect", "100us"}}),
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
  test::command_result r = test::run_cli(run);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "sluice: error: " + line + allow_hint + "\n");
  r = test::run_cli(run + " --allow-inert");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sluice: warning: " + line + "\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("WARNING: " + line + "\n"), std::string::npos) << r.output;  // the summary table
  r = test::run_cli("stats " + test::scenario_path("incast.yaml") + " --allow-inert");
  EXPECT_EQ(r.output, "sluice: error: --allow-inert: applies to 'run' and 'params', not 'stats'\n");
}

TEST(InertSettings, EveryShippedScenarioHasNone) {
  // Run the loader's check on each shipped scenario through the CLI's listing (one process each).
  for (const char* name : {"incast.yaml", "dumbbell.yaml", "pcn-basic.yaml", "pfc-deadlock.yaml", "tcd-victim.yaml",
                           "ib-incast.yaml", "tcd-victim-ib.yaml", "dumbbell-dcqcn.yaml", "qcn-og-hotspot.yaml"}) {
    const test::command_result r = test::run_cli("params " + test::scenario_path(name) + " --match '*.mtu'");
    EXPECT_EQ(r.status, 0) << name << ": " << r.output;
  }
}

}  // namespace
}  // namespace sluice
