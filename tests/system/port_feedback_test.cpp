// Congestion feedback per port (issue 22, IB/CEE parity in ports[]): the marks a switch egress
// queue's congestion point set (ecn_marked, fecn_marked), the CNMs it made (cnm_sent), and per
// NIC and priority the CNPs (InfiniBand: BECNs) it sent and the CNPs and CNMs it received. Each
// is checked against the totals and the schemes' own counters of the same run.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {

nlohmann::json run_with(const std::string& scenario, const std::string& cc, const sc_core::sc_time& until) {
  run_options o;
  o.cc = cc;
  o.until = until;
  simulation sim(load_scenario_file(test::scenario_path(scenario)), o);
  sim.run();
  return sim.summary();
}

// The sum of a ports[] field over the switch rows (switches: true) or the NIC rows.
double ports_sum(const nlohmann::json& s, const std::string& field, bool switches) {
  double sum = 0;
  for (const auto& p : s["ports"]) {
    const bool is_switch = p["node"].get<std::string>().rfind("sw", 0) == 0;
    if (is_switch == switches) sum += p[field].get<double>();
  }
  return sum;
}

// The sum of the counters whose name ends with `suffix`.
double counters_ending(const nlohmann::json& s, const std::string& suffix) {
  double sum = 0;
  for (const auto& [name, value] : s["counters"].items())
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      sum += value.get<double>();
  return sum;
}

void expect_every_row_has_the_feedback_columns(const nlohmann::json& s) {
  for (const auto& p : s["ports"])
    for (const char* field : {"ecn_marked", "fecn_marked", "cnm_sent", "cnp_sent", "cnp_received", "cnm_received"})
      ASSERT_TRUE(p.contains(field)) << field << " missing in " << p.dump();
}

}  // namespace

TEST(PortFeedback, InfiniBandIncastCountsFecnMarksAndBecnsPerPort) {
  const nlohmann::json s = run_with("ib-incast.yaml", "ib-cca", sc_core::sc_time(1, sc_core::SC_MS));
  expect_every_row_has_the_feedback_columns(s);
  const auto& t = s["totals"];
  // FECN: marked at the switch queue toward r0, as many as IB CCA's own counter says.
  EXPECT_GT(t["fecn_marks"].get<double>(), 0);
  EXPECT_EQ(ports_sum(s, "fecn_marked", true), t["fecn_marks"].get<double>());
  EXPECT_EQ(test::find_port(s, "sw0", "r0", 3)["fecn_marked"].get<double>(), t["fecn_marks"].get<double>());
  EXPECT_EQ(ports_sum(s, "ecn_marked", true), 0) << "no CE marks on InfiniBand";
  // BECNs: r0 sent them (one per FECN-marked packet it answered), the senders received them.
  EXPECT_EQ(ports_sum(s, "cnp_received", false), t["becn_frames"].get<double>());
  EXPECT_EQ(test::find_port(s, "r0", "sw0", 3)["cnp_sent"].get<double>(), counters_ending(s, ".cnp_sent"));
  EXPECT_GE(ports_sum(s, "cnp_sent", false), ports_sum(s, "cnp_received", false)) << "some are in flight";
  EXPECT_GT(test::find_port(s, "h0", "sw0", 3)["cnp_received"].get<double>(), 0);
}

TEST(PortFeedback, DcqcnDumbbellCountsEcnMarksAndCnpsPerPort) {
  const nlohmann::json s = run_with("dumbbell-dcqcn.yaml", "", sc_core::sc_time(2, sc_core::SC_MS));
  expect_every_row_has_the_feedback_columns(s);
  const double marked = ports_sum(s, "ecn_marked", true);
  EXPECT_GT(marked, 0);
  EXPECT_EQ(marked, counters_ending(s, ".ecn_marked")) << "the CP's own counters";
  EXPECT_EQ(ports_sum(s, "fecn_marked", true), 0);
  EXPECT_EQ(ports_sum(s, "cnp_received", false), s["totals"]["cnp_frames"].get<double>());
  EXPECT_EQ(ports_sum(s, "cnp_sent", false), counters_ending(s, ".cnp_sent"));
  EXPECT_EQ(ports_sum(s, "cnm_sent", true) + ports_sum(s, "cnm_received", false), 0);
}

TEST(PortFeedback, QcnDumbbellCountsCnmsWhereTheyAreMadeAndReceived) {
  const nlohmann::json s = run_with("dumbbell.yaml", "qcn", sc_core::sc_time(2, sc_core::SC_MS));
  expect_every_row_has_the_feedback_columns(s);
  const double made = ports_sum(s, "cnm_sent", true);
  EXPECT_GT(made, 0);
  EXPECT_EQ(made, counters_ending(s, ".cnm_sent")) << "the QCN CPs' own counters";
  EXPECT_EQ(ports_sum(s, "cnm_received", false), s["totals"]["cnm_frames"].get<double>());
  EXPECT_GE(made, ports_sum(s, "cnm_received", false));
  EXPECT_EQ(ports_sum(s, "ecn_marked", true) + ports_sum(s, "cnp_sent", false), 0);
}
