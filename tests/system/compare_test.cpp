// `sluice compare A B`: the differing inputs and the metric deltas of two runs.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {

std::string run_into(const std::string& name, const std::string& options) {
  const std::string out = ::testing::TempDir() + "/compare-" + std::to_string(getpid()) + "-" + name;
  auto r =
      test::run_cli("run " + test::scenario_path("incast.yaml") + " --until 200us -q --out " + out + " " + options);
  EXPECT_EQ(r.status, 0) << r.output;
  return out;
}

}  // namespace

TEST(Compare, NamesTheDifferingInputsAndEachMetricsDelta) {
  const std::string a = run_into("a", "");
  const std::string b = run_into("b", "--seed 3 --set sw0.mmu.threshold=static --set 'sw0.port*.pfc.xoff=40KB'");
  auto r = test::run_cli("compare " + a + " " + b + "/summary.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("  seed: 1 -> 3\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("override only in B: --set sw0.mmu.threshold=static\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("override only in B: --set sw0.port*.pfc.xoff=40KB\n"), std::string::npos) << r.output;
  // The static 40 KB threshold pauses where the default dynamic one did not: each row is
  // metric, A, B, B - A (and the change when A is not 0), read back from both summaries.
  const nlohmann::json sa = nlohmann::json::parse(test::slurp(a + "/summary.json"));
  const nlohmann::json sb = nlohmann::json::parse(test::slurp(b + "/summary.json"));
  const uint64_t pa = sa["totals"]["pause_frames"], pb = sb["totals"]["pause_frames"];
  ASSERT_NE(pa, pb);
  const std::size_t row = r.output.find("totals.pause_frames");
  ASSERT_NE(row, std::string::npos) << r.output;
  std::istringstream cells(r.output.substr(row, r.output.find('\n', row) - row));
  std::string name;
  double va = 0, vb = 0, delta = 0;
  cells >> name >> va >> vb >> delta;
  EXPECT_EQ(va, static_cast<double>(pa));
  EXPECT_EQ(vb, static_cast<double>(pb));
  EXPECT_EQ(delta, static_cast<double>(pb) - static_cast<double>(pa));
  // Only what differs is listed; --match narrows the metrics.
  EXPECT_EQ(r.output.find("totals.wall_time_s"), std::string::npos);
  auto narrowed = test::run_cli("compare " + a + " " + b + " --match 'flows.*'");
  EXPECT_EQ(narrowed.output.find("totals."), std::string::npos) << narrowed.output;
}

TEST(Compare, TheSameRunTwiceDiffersInNothing) {
  const std::string a = run_into("same", "");
  auto r = test::run_cli("compare " + a + " " + a);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("inputs:\n  the same\nmetrics: 0 differ"), std::string::npos) << r.output;
}

TEST(Compare, BadRunsAreOneLineErrors) {
  const std::string a = run_into("err", "");
  test::expect_cli_error("compare " + a + " /nonexistent/run", "compare: cannot open '/nonexistent/run'");
  const std::string not_json = test::write_temp("not.json", "{{{");
  test::expect_cli_error("compare " + a + " " + not_json, "is not JSON");
  test::expect_cli_error("compare " + a, "compare: needs two runs");
  test::expect_cli_error("compare " + a + " " + a + " --until 1ms", "--until: applies to run");
}
