// dcqcn-rtl in fabric runs: every event of every flow checked in lockstep against the C++
// fixed-point reference on dumbbell-dcqcn, and the mutant stopped at its first mismatch.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "models/rtl/dcqcn_rp_rtl.h"
#include "tests/rtl/first_report.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
// The mutation test's policy: the broken RTL build behind the same wrapper (this executable only).
const policy_registrar<rp_policies> mutant_reg{
    "dcqcn-rtl-mutant", "test only: dcqcn-rtl with one wrong bit in the cut rate",
    [](const sc_core::sc_object& nic, const mac_port& mac) {
      return std::make_unique<dcqcn_rtl_maker>(nic, mac, rp_rtl_build::mutant);
    }};
}  // namespace

TEST(RtlDcqcnFabric, LockstepOnDumbbellDcqcnFindsNoMismatch) {
  // The suite runs the scenario's 80 ms; the opt-in target rtl-vectors 7 s (SLUICE_RTL_FABRIC_UNTIL):
  // more than 10^6 events.
  const char* until = std::getenv("SLUICE_RTL_FABRIC_UNTIL");
  const std::string out = ::testing::TempDir() + "/rtl-rp-" + std::to_string(getpid());
  auto r = test::run_cli("run " + test::scenario_path("dumbbell-dcqcn.yaml") +
                         " -q --set 'h*.rp=dcqcn-rtl' --set 'h*.rtl.check=lockstep' --out " + out +
                         (until ? std::string(" --until ") + until : ""));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  uint64_t events = 0;
  for (const char* nic : {"h0", "h1", "h2", "h3"}) {
    const std::string key = std::string(nic) + ".rtl_rp_events";
    ASSERT_TRUE(j["counters"].contains(key)) << key;
    events += j["counters"][key].get<uint64_t>();
  }
  EXPECT_GT(events, until ? 1000000u : 10000u);  // 11 395 over the 80 ms, 1 019 393 over 7 s
  std::cout << events << " reaction-point events in lockstep, no mismatch\n";
}

TEST(RtlDcqcnFabric, TheLockstepCheckerStopsTheMutantAtItsFirstMismatch) {
  auto sim = test::make_sim(test::slurp(test::scenario_path("dumbbell-dcqcn.yaml")),
                            {{"h0.rp", "dcqcn-rtl-mutant"}, {"h0.rtl.check", "lockstep"}});
  ASSERT_EQ(chdir(::testing::TempDir().c_str()), 0);
  const std::string message = test::first_report(*sim);
  ASSERT_FALSE(message.empty()) << "the mutant ran to the end";
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind("h0: dcqcn-rtl lockstep mismatch at ", 0), 0u) << message;
  for (const char* part : {" (event ", "flow 0", ", cnp on rc ", ": rtl rc ", " in 1 cycles, reference rc ",
                           "waveform h0.rtl-mismatch.vcd"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
  const std::string vcd = test::slurp(::testing::TempDir() + "/h0.rtl-mismatch.vcd");
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  std::cout << message << '\n';
}
