// Validation: the headroom a lossless priority group actually uses after XOFF follows the
// textbook estimate (cable round trip at line rate plus frames in flight), and the default
// headroom covers it.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
// a --40G--> sw0 --10G--> b: a's line-rate flow backs up in sw0 and PFC must hold it.
nlohmann::json run_with_delay(const std::string& delay) {
  std::string yaml = R"(
platform:
  kind: custom
  switches: [sw0]
  nics: [a, b]
  links: [{a: a, b: sw0, rate: 40Gbps, delay: )" +
                     delay + R"(}, {a: sw0, b: b, rate: 10Gbps, delay: 1us}]
traffic: [{kind: finite, src: a, dst: b, size: 50MB, priority: 3}]
params: {"sw0.mmu.threshold": static, "sw0.port0.pfc.xoff": 20KB}
run: {until: 1ms}
)";
  auto sim = test::make_sim(yaml);
  sim->run();
  return test::find_port(sim->summary(), "sw0", "a", 3);
}
}  // namespace

// One simulation per process: each delay is its own test.
static void check_headroom_use(const char* delay) {
  nlohmann::json p = run_with_delay(delay);
  double d = parse_time(delay).to_seconds();
  double round_trip_bytes = 2 * d * 40e9 / 8;  // 10 KB at 1 us, 50 KB at 5 us
  double used = p["max_headroom_bytes"].get<double>();
  double configured = p["headroom_bytes"].get<double>();
  EXPECT_EQ(p["drops"], 0);
  EXPECT_GT(p["pause_sent"].get<uint64_t>(), 0u);
  // While PFC travels and takes effect the egress drains at 10 Gb/s (a quarter of the arrival
  // rate), and headroom is returned first: at least half the round trip must still land there.
  EXPECT_GE(used, 0.5 * round_trip_bytes);
  // The default (round trip + 3 frames + a PFC frame, rounded up to 1 KiB) is enough.
  EXPECT_LE(used, configured);
  EXPECT_LE(configured, round_trip_bytes + 3 * 1000 + 64 + 1024);
}

TEST(Headroom, UseFollowsTheCableRoundTripAt1us) { check_headroom_use("1us"); }
TEST(Headroom, UseFollowsTheCableRoundTripAt5us) { check_headroom_use("5us"); }
