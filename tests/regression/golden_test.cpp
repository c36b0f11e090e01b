// Regression: small deterministic runs compared byte for byte with stored summaries, so any
// change of model behaviour shows up. After an intended change, regenerate with
//   SLUICE_UPDATE_GOLDEN=1 ctest -R Golden
// and review the diff of tests/regression/golden/ like code.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
using test::slurp;

// Runs `scenario` for `until` and compares its summary (wall-clock field removed) with the
// golden file of the same name.
void check_golden(const std::string& scenario, const std::string& until) {
  std::string out = ::testing::TempDir() + "/golden-" + std::to_string(getpid());
  auto r = test::run_cli("run " + test::scenario_path(scenario + ".yaml") + " --until " + until + " -q --out " + out,
                         "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(slurp(out + "/summary.json"));
  j["totals"].erase("wall_time_s");
  j["totals"].erase("elaboration_s");
  // How the run was made names the build's commit and the paths of this checkout: its own tests
  // check it (provenance_test.cpp); the goldens hold what the models computed.
  j.erase("provenance");
  std::string actual = j.dump(1) + "\n";
  std::string golden_path = std::string(SLUICE_SOURCE_DIR) + "/tests/regression/golden/" + scenario + ".json";
  const char* update = std::getenv("SLUICE_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(golden_path) << actual;
    GTEST_SKIP() << "golden file rewritten: " << golden_path;
  }
  std::string expected = slurp(golden_path);
  ASSERT_FALSE(expected.empty()) << "missing " << golden_path << " (SLUICE_UPDATE_GOLDEN=1 creates it)";
  if (expected != actual) {
    std::ofstream(out + "/actual.json") << actual;
    FAIL() << "summary differs from " << golden_path << "; actual written to " << out
           << "/actual.json (diff them; regenerate with SLUICE_UPDATE_GOLDEN=1 if the change is intended)";
  }
}
}  // namespace

TEST(Golden, Incast) { check_golden("incast", "300us"); }
// pcn-basic: the steady state and the first 500 us of the bursts (they start at 1 ms).
TEST(Golden, PcnBasic) { check_golden("pcn-basic", "1500us"); }
TEST(Golden, PcnBasicT0) { check_golden("pcn-basic-t0", "500us"); }
TEST(Golden, ParkingLot) { check_golden("parking-lot", "300us"); }
TEST(Golden, PfcDeadlock) { check_golden("pfc-deadlock", "300us"); }
TEST(Golden, LeafSpine) { check_golden("leaf-spine", "200us"); }
