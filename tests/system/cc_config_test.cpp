// Congestion-control configuration errors (issue 6): a Qeq its queue can never reach, a flow's
// scheme without its congestion point on the queues it crosses, and the --help scheme list.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "models/cc/scheme.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
const std::string dumbbell = test::scenario_path("dumbbell.yaml");
// The dumbbell's sw0: ports 0-3 face h0-h3, port 4 the bottleneck to sw1 (link order). With a
// 1 MB shared pool and 10 KB of headroom on each of its 5 ports, class 3 (lossless) can hold at
// most 1 000 000 + 5 x 10 000 = 1 050 000 B = 1050KB.
const std::string small_sw0 = " --set sw0.mmu.buffer=1MB --set 'sw0.*.pfc.headroom=10KB'";
}  // namespace

TEST(CcConfig, QcnQeqAboveTheSwitchBufferIsAOneLineError) {
  test::command_result r =
      test::run_cli("params " + dumbbell + " --cc qcn" + small_sw0 + " --set sw0.port4.prio3.qcn.qeq=1051KB");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "sluice: error: sw0.port4.prio3.qcn.qeq: '1051KB' is above the switch buffer of class 3 (1050KB: shared "
            "pool, reserves and headroom)\n");
  // Exactly the capacity is allowed (the queue can reach it).
  r = test::run_cli("params " + dumbbell + " --cc qcn" + small_sw0 +
                    " --set sw0.port4.prio3.qcn.qeq=1050KB --match sw0.port4.prio3.qcn.qeq");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(CcConfig, EcmQeqAboveTheSwitchBufferIsAOneLineError) {
  // A reserve counts too: 1 050 000 + 5 x 2 000 = 1 060 000 B.
  const test::command_result r = test::run_cli("params " + dumbbell + " --cc ecm" + small_sw0 +
                                               " --set 'sw0.*.pfc.reserve=2KB' --set sw0.port4.prio3.ecm.qeq=2MB");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "sluice: error: sw0.port4.prio3.ecm.qeq: '2MB' is above the switch buffer of class 3 (1060KB: shared "
            "pool, reserves and headroom)\n");
}

TEST(CcConfig, LossyClassHasNoHeadroomInTheBuffer) {
  // Class 3 lossy: 1 000 000 B of shared pool only, so 1001KB is above it.
  const test::command_result r = test::run_cli("params " + dumbbell + " --cc qcn" + small_sw0 +
                                               " --set sw0.prio3.lossless=false --set sw0.port4.prio3.qcn.qeq=1001KB");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("is above the switch buffer of class 3 (1MB: "), std::string::npos) << r.output;
}

TEST(CcConfig, SchemeWithoutItsCongestionPointOnAQueueItCrossesIsAOneLineError) {
  // h0's flow (the first) crosses sw0 port 4, the bottleneck.
  test::command_result r = test::run_cli("params " + dumbbell + " --cc dcqcn --set sw0.port4.prio3.cp=none");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "sluice: error: sw0.port4.prio3.cp: 'none' leaves flow h0->r0 (cc dcqcn) without its congestion point "
            "'dcqcn'\n");
  // Another scheme's congestion point is no better.
  r = test::run_cli("params " + dumbbell + " --cc qcn --set sw0.port4.prio3.cp=ecm");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(
      r.output,
      "sluice: error: sw0.port4.prio3.cp: 'ecm' leaves flow h0->r0 (cc qcn) without its congestion point 'qcn'\n");
  // A queue no flow crosses (sw0 port 0 sends only toward h0, which receives nothing) may differ.
  r = test::run_cli("params " + dumbbell + " --cc dcqcn --set sw0.port0.prio3.cp=none --match sw0.port0.prio3.cp");
  EXPECT_EQ(r.status, 0) << r.output;
  // TIMELY needs no congestion point.
  r = test::run_cli("params " + dumbbell + " --cc timely --set sw0.port4.prio3.cp=none --match sw0.port4.prio3.cp");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(CcConfig, SchemeWithoutCongestionPointDoesNotTakeTheClassFromOneWithIt) {
  // Two traffic groups on class 3 through sw0's port 2 (toward b): DCQCN first, TIMELY second.
  // TIMELY's "none" must not replace the DCQCN congestion point the first flow needs.
  const std::string path = ::testing::TempDir() + "/cc_mixed.yaml";
  std::ofstream(path) << "platform:\n  kind: custom\n  switches: [sw0]\n  nics: [a, c, b]\n"
                         "  links: [{a: a, b: sw0, rate: 40Gbps, delay: 1us}, {a: c, b: sw0, rate: 40Gbps, delay: 1us},"
                         " {a: sw0, b: b, rate: 40Gbps, delay: 1us}]\n"
                         "traffic:\n"
                         "  - {kind: constant, src: a, dst: b, rate: 20Gbps, priority: 3, cc: dcqcn}\n"
                         "  - {kind: constant, src: c, dst: b, rate: 20Gbps, priority: 3, cc: timely}\n";
  const test::command_result r = test::run_cli("params " + path + " --match sw0.port2.prio3.cp");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("sw0\\.port2\\.prio3\\.cp +choice +none +dcqcn"))) << r.output;
}

TEST(CcConfig, HelpListsEverySchemeOfTheTable) {
  const std::string names = cc_scheme_registry::instance().names();
  test::command_result r = test::run_cli("run --help");
  EXPECT_EQ(r.status, 0);
  // Boost wraps the description: compare with the line breaks and indentation collapsed.
  const std::string flat = std::regex_replace(r.output, std::regex("\\s+"), " ");
  EXPECT_NE(flat.find("(" + names + ")"), std::string::npos) << r.output;
}

// A scheme's feedback belongs to one fabric: RoCEv2 CNPs, ECN and CNMs to Ethernet, FECN/BECN to
// InfiniBand. The other fabric's schemes are a one-line error that gives the scheme's own reason
// and names the ones that fit; `none` fits both.
TEST(CcConfig, SchemeOfTheOtherFabricIsAOneLineError) {
  test::command_result r = test::run_cli("run " + test::scenario_path("ib-incast.yaml") + " --cc dcqcn -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "sluice: error: --cc: 'dcqcn' is a scheme for Ethernet (CEE) fabrics, and this one is InfiniBand "
            "(link_layer: ib): " +
                cc_scheme_registry::instance().find("dcqcn")->fabric_reason + "; one of {" +
                cc_scheme_registry::instance().names_for(true) + "}\n");
  r = test::run_cli("run " + test::scenario_path("incast.yaml") + " --cc ib-cca -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "sluice: error: --cc: 'ib-cca' is a scheme for InfiniBand fabrics, and this one is Ethernet (CEE): " +
                cc_scheme_registry::instance().find("ib-cca")->fabric_reason + "; one of {" +
                cc_scheme_registry::instance().names_for(false) + "}\n");
  // Each scheme that runs on one fabric only says why, in its own words.
  for (const auto& s : cc_scheme_registry::instance().all())
    if (s->fabric != cc_fabric::any) {
      EXPECT_FALSE(s->fabric_reason.empty()) << s->name;
    }
  // The lists are the registry's (a new scheme's folder adds itself): here, which fabric each
  // shipped scheme belongs to.
  const std::string ib = ", " + cc_scheme_registry::instance().names_for(true) + ",";
  const std::string eth = ", " + cc_scheme_registry::instance().names_for(false) + ",";
  for (const char* s : {" none,", " ib-cca,", " ib-cca+tcd,"}) EXPECT_NE(ib.find(s), std::string::npos) << s;
  for (const char* s : {" none,", " asm,", " dcqcn,", " ecm,", " pcn,", " qcn,", " dcqcn+tcd,", " timely,"}) {
    EXPECT_NE(eth.find(s), std::string::npos) << s;
    if (std::string(s) != " none,") {
      EXPECT_EQ(ib.find(s), std::string::npos) << s;
    }
  }
  EXPECT_EQ(eth.find(" ib-cca"), std::string::npos);
  r = test::run_cli("params " + test::scenario_path("ib-incast.yaml") + " --cc none --match 'h0.rp'");
  EXPECT_EQ(r.status, 0) << r.output;
}

// A scheme-wide parameter is one setting: `sluice params --cc qcn` lists qcn.path_ba once (not
// once per NIC and once per switch queue), and qcn.sonar and ecm.w likewise.
TEST(CcConfig, ParamsListsQcnPathBaOnce) {
  for (const auto& [cc, leaf] : {std::pair{"qcn", "path_ba"}, std::pair{"qcn", "sonar"}, std::pair{"ecm", "w"}}) {
    const test::command_result r =
        test::run_cli("params " + test::scenario_path("dumbbell.yaml") + " --cc " + cc + " --match '*." + leaf + "'");
    EXPECT_EQ(r.status, 0) << r.output;
    std::istringstream lines(r.output);
    std::vector<std::string> rows;
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("parameter", 0) != 0 && !line.empty()) rows.push_back(line);
    ASSERT_EQ(rows.size(), 1u) << r.output;
    EXPECT_EQ(rows[0].rfind(std::string(cc) + "." + leaf + " ", 0), 0u) << r.output;
  }
}

// Setting qcn.path_ba once switches both ends: both read the one parameter (there is no per-NIC
// or per-queue copy left to set), and the congestion point sends its Fb99 push-backs (qFb = 0
// CNMs). That the reaction points act on them is the recovery-time test in qcn_test.cpp
// (Qcn.OgHotspotTargetReductionAndPathBaRecoverAtLeastFiveTimesFaster), which sets it once too.
TEST(CcConfig, SettingQcnPathBaOnceSwitchesBothEnds) {
  run_options o;
  o.cc = "qcn";
  o.until = sc_core::sc_time(3, sc_core::SC_MS);
  o.sets = {{"qcn.path_ba", "true"}};
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  const param_base* p = param_registry::instance().find("qcn.path_ba");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value_string(), "true");
  EXPECT_EQ(param_registry::instance().find("h0.qcn.path_ba"), nullptr) << "no per-NIC copy";
  EXPECT_EQ(param_registry::instance().find("sw0.port4.prio3.qcn.path_ba"), nullptr) << "no per-queue copy";
  sim.run();
  const nlohmann::json s = sim.summary();
  EXPECT_GT(test::counter(s, "sw0.port4.prio3.qcn.fb99_sent"), 0) << "the CP end is on";
}
