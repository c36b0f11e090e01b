// summary.json says how the run was made: the scenario and its SHA-256, every override in the
// order applied, the run options and the build (docs/outputs.md#provenance).
#include <gtest/gtest.h>

#include <regex>

#include "tests/support/harness.h"

using namespace sluice;

namespace {

std::string shell(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 256> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

nlohmann::json provenance_of_cli_run(const std::string& scenario_path, const std::string& options) {
  const std::string out = ::testing::TempDir() + "/provenance-" + std::to_string(getpid());
  auto r = test::run_cli("run " + scenario_path + " --until 20us -q --out " + out + " " + options);
  EXPECT_EQ(r.status, 0) << r.output;
  return nlohmann::json::parse(test::slurp(out + "/summary.json"))["provenance"];
}

}  // namespace

TEST(Provenance, NamesTheScenarioItsHashTheOverridesInOrderAndTheOptions) {
  // A scenario with its own params: they come first, then --set in command-line order.
  const std::string path =
      test::write_temp("prov.yaml", test::two_nics("{kind: finite, src: a, dst: b, size: 10KB, priority: 3}",
                                                   "params:\n  a.header: 60B\n  b.header: 62B\n"));
  const nlohmann::json p = provenance_of_cli_run(path, "--seed 9 --set b.header=64B --set a.header=66B --cc none");
  EXPECT_EQ(p["scenario_path"], path);
  const std::string sum = shell("sha256sum '" + path + "'");
  EXPECT_EQ(p["scenario_sha256"], sum.substr(0, 64));
  const nlohmann::json expected = nlohmann::json::parse(R"([
    {"origin": "params", "pattern": "a.header", "value": "60B"},
    {"origin": "params", "pattern": "b.header", "value": "62B"},
    {"origin": "--set", "pattern": "b.header", "value": "64B"},
    {"origin": "--set", "pattern": "a.header", "value": "66B"}])");
  EXPECT_EQ(p["overrides"], expected);
  EXPECT_EQ(p["cc"], "none");
  EXPECT_EQ(p["seed"], 9);
  EXPECT_EQ(p["until"], "20us");
  EXPECT_EQ(p["sample_period"], "10us");
  EXPECT_EQ(p["profile"], "default");
  EXPECT_EQ(p["allow_inert"], false);
  EXPECT_TRUE(std::regex_match(p["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << p["date"];
  EXPECT_FALSE(p["host"].get<std::string>().empty());
}

TEST(Provenance, NamesTheBuildsVersionAndACommitOfThisRepository) {
  const nlohmann::json p = provenance_of_cli_run(test::scenario_path("incast.yaml"), "");
  EXPECT_EQ(p["sluice_version"], SLUICE_VERSION);
  const std::string commit = p["git_commit"];
  if (commit == "unknown") GTEST_SKIP() << "built outside a git checkout";
  ASSERT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{40}"))) << commit;
  // The build's commit exists in this checkout (HEAD may have moved on since the build).
  EXPECT_EQ(shell("git -C '" + std::string(SLUICE_SOURCE_DIR) + "' cat-file -t " + commit + " 2>&1"), "commit\n");
  EXPECT_TRUE(p["git_dirty"].is_boolean());
}

TEST(Provenance, ADifferentScenarioTextHasADifferentHash) {
  const std::string a = test::write_temp("a.yaml", test::two_nics("{kind: finite, src: a, dst: b, size: 10KB}", ""));
  const std::string b = test::write_temp("b.yaml", test::two_nics("{kind: finite, src: a, dst: b, size: 11KB}", ""));
  EXPECT_NE(provenance_of_cli_run(a, "")["scenario_sha256"], provenance_of_cli_run(b, "")["scenario_sha256"]);
}
