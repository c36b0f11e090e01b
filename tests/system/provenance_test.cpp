// summary.json says how the run was made: the scenario and its SHA-256, every override in the
// order applied, the run options and the build (docs/outputs.md#provenance).
#include "platforms/provenance.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

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

// The hash (Nettle's, platforms/provenance.cpp): against sha256sum on the FIPS
// 180-4 examples and on random texts of every length around the one- and two-block paddings.
TEST(Provenance, Sha256IsSha256sumsOnRandomTextsOfEveryLength) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  std::mt19937_64 rng(23);
  std::vector<std::string> texts;
  for (std::size_t n = 0; n < 200; ++n) texts.push_back(std::string(n, '\0'));
  for (std::size_t n : {1000u, 4095u, 4096u, 65537u}) texts.push_back(std::string(n, '\0'));
  const std::string dir = ::testing::TempDir() + "/sha-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::string files;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (char& c : texts[i]) c = static_cast<char>(rng());
    const std::string f = dir + "/" + std::to_string(i);
    std::ofstream(f, std::ios::binary) << texts[i];
    files += " '" + f + "'";
  }
  std::istringstream sums(shell("sha256sum" + files));
  std::string line;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    ASSERT_TRUE(std::getline(sums, line));
    EXPECT_EQ(sha256_hex(texts[i]), line.substr(0, 64)) << "length " << texts[i].size();
  }
  std::filesystem::remove_all(dir);
}
