// Hardware profiles (platforms/profiles.*, docs/models/profiles.md): each profile's values land
// on the parameters it names, the default profile is the declared defaults, explicit settings
// (params:, --set) win over a profile, and an unknown name is a one-line error listing them.
#include "models/core/params.h"
#include "platforms/profiles.h"
#include "platforms/run_request.h"
#include "tests/support/harness.h"

namespace sluice {
namespace {

std::string value_of(const std::string& name) {
  const param_base* p = param_registry::instance().find(name);
  return p ? p->value_string() : "(no parameter " + name + ")";
}

// dumbbell-dcqcn (DCQCN's congestion point on every switch queue of class 3) under `profile`.
std::unique_ptr<simulation> dcqcn_dumbbell(const std::string& profile,
                                           std::vector<std::pair<std::string, std::string>> sets = {},
                                           const std::string& extra_params = "") {
  std::string yaml = test::slurp(test::scenario_path("dumbbell-dcqcn.yaml"));
  if (!profile.empty()) yaml += "profile: " + profile + "\n";
  if (!extra_params.empty()) yaml += "params:\n" + extra_params;
  return test::make_sim(yaml, std::move(sets));
}

TEST(Profiles, DefaultIsTheDeclaredDefaults) {
  auto sim = dcqcn_dumbbell("default");
  EXPECT_EQ(value_of("h0.header"), "0B");
  EXPECT_EQ(value_of("h0.mtu"), "1KB");
  EXPECT_EQ(value_of("sw0.mmu.buffer"), "12MiB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmin"), "5KB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmax"), "200KB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.pmax"), "0.01");
  EXPECT_EQ(value_of("sw0.port4.pfc.reserve"), "0B");
}

TEST(Profiles, FortyGigabitEra) {
  auto sim = dcqcn_dumbbell("40g");
  EXPECT_EQ(value_of("h0.header"), "66B");  // with the 802.1Q tag of VLAN-based PFC
  EXPECT_EQ(value_of("r3.header"), "66B");
  EXPECT_EQ(value_of("h0.mtu"), "1KB");
  EXPECT_EQ(value_of("sw1.mmu.buffer"), "12MiB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmin"), "5KB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmax"), "200KB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.pmax"), "0.01");
  // The derived headroom follows the profile's larger frame (1000 + 66 B) at 40 Gb/s, 1 us.
  EXPECT_EQ(value_of("sw0.port4.pfc.headroom"),
            format_bytes(pfc::required_headroom(data_rate{40e9}, sc_core::sc_time(1, sc_core::SC_US),
                                                sc_core::SC_ZERO_TIME, 1066)));
}

TEST(Profiles, HundredGigabitEra) {
  auto sim = dcqcn_dumbbell("100g");
  EXPECT_EQ(value_of("h2.header"), "62B");
  EXPECT_EQ(value_of("h2.mtu"), "1KB");
  EXPECT_EQ(value_of("sw0.mmu.buffer"), "32MiB");
  EXPECT_EQ(value_of("sw1.port0.pfc.reserve"), "4KiB");
  EXPECT_EQ(value_of("sw1.port0.prio3.ecn.kmin"), "400KB");
  EXPECT_EQ(value_of("sw1.port0.prio3.ecn.kmax"), "1600KB");
  EXPECT_EQ(value_of("sw1.port0.prio3.ecn.pmax"), "0.2");
  // A profile changes defaults, not settings: `sluice params` shows it as the default.
  EXPECT_EQ(param_registry::instance().find("sw0.mmu.buffer")->default_string(), "32MiB");
  EXPECT_FALSE(param_registry::instance().find("sw0.mmu.buffer")->overridden());
}

TEST(Profiles, ExplicitSettingsWin) {
  auto sim = dcqcn_dumbbell("100g", {{"sw*.port*.prio3.ecn.kmax", "900KB"}, {"h*.mtu", "4000B"}},
                            "  sw0.mmu.buffer: 8MiB\n  \"h0.header\": 20B\n");
  EXPECT_EQ(value_of("sw0.mmu.buffer"), "8MiB");   // params:
  EXPECT_EQ(value_of("sw1.mmu.buffer"), "32MiB");  // the profile where nothing was set
  EXPECT_EQ(value_of("h0.header"), "20B");         // params:
  EXPECT_EQ(value_of("h1.header"), "62B");
  EXPECT_EQ(value_of("h1.mtu"), "4KB");                      // --set
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmax"), "900KB");  // --set, on a policy's own parameter
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmin"), "400KB");
}

TEST(Profiles, CommandLineProfileReplacesTheScenarios) {
  std::string yaml = test::slurp(test::scenario_path("dumbbell-dcqcn.yaml")) + "profile: 40g\n";
  run_request r;
  r.profile = "100g";
  simulation sim(load_scenario_text(yaml, "test"), parse_run_request(r, "--"));
  EXPECT_EQ(value_of("sw0.mmu.buffer"), "32MiB");
}

TEST(Profiles, OnlyTheDcqcnCongestionPointTakesItsThresholds) {
  // ecn-threshold's own ecn.kmin (40 KiB) is not DCQCN's Kmin (class 2 carries no DCQCN flow).
  auto sim = dcqcn_dumbbell("100g", {{"sw0.port4.prio2.cp", "ecn-threshold"}});
  EXPECT_EQ(value_of("sw0.port4.prio2.ecn.kmin"), "40KiB");
  EXPECT_EQ(value_of("sw0.port4.prio3.ecn.kmin"), "400KB");
}

TEST(Profiles, InfinibandKeepsItsHeaders) {
  std::string yaml = test::slurp(test::scenario_path("ib-incast.yaml")) + "profile: 100g\n";
  auto sim = test::make_sim(yaml);
  EXPECT_EQ(value_of("h0.header"), param_registry::instance().find("h0.header")->default_string());
  EXPECT_NE(value_of("h0.header"), "62B");
  EXPECT_EQ(value_of("sw0.mmu.buffer"), "12MiB");  // the CEE switch buffer is not an IB one
}

TEST(Profiles, UnknownNamesAreOneLineErrors) {
  try {
    load_scenario_text(test::slurp(test::scenario_path("incast.yaml")) + "profile: 25g\n", "test");
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), "profile: '25g' is not one of {default, 40g, 100g}");
  }
  run_request r;
  r.profile = "400g";
  try {
    parse_run_request(r, "--");
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), "--profile: '400g' is not one of {default, 40g, 100g}");
  }
}

}  // namespace
}  // namespace sluice
