#include "models/core/params.h"

#include <gtest/gtest.h>

using namespace sluice;

TEST(Params, WildcardsSetEveryMatchAndOnlyThose) {
  param<byte_count> a("sw0.port0.pfc.xoff", byte_count{1000}, "d", byte_count{0}, byte_count{1 << 30});
  param<byte_count> b("sw1.port7.pfc.xoff", byte_count{1000}, "d", byte_count{0}, byte_count{1 << 30});
  param<byte_count> c("sw1.port7.pfc.headroom", byte_count{1000}, "d", byte_count{0}, byte_count{1 << 30});
  EXPECT_EQ(param_registry::instance().set("sw*.port*.pfc.xoff", "96KiB"), 2u);
  EXPECT_EQ(a().bytes, 96u * 1024);
  EXPECT_EQ(b().bytes, 96u * 1024);
  EXPECT_EQ(c().bytes, 1000u);
  EXPECT_EQ(a.default_string(), "1KB");
  EXPECT_EQ(a.value_string(), "96KiB");
}

TEST(Params, RejectsOutOfRangeBadUnitsAndUnknownNames) {
  param<double> alpha("sw0.mmu.alpha", 0.125, "d", 1.0 / 1024, 1024);
  EXPECT_THROW(param_registry::instance().set("sw0.mmu.alpha", "0"), config_error);
  EXPECT_THROW(param_registry::instance().set("sw0.mmu.alpha", "2KB"), config_error);
  EXPECT_DOUBLE_EQ(alpha(), 0.125);  // a failed set leaves the value alone
  try {
    param_registry::instance().set("sw9.nothing", "1");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("sw9.nothing"), std::string::npos);
  }
}

TEST(Params, ChoicesAreValidated) {
  choice_param mode("sw0.mmu.threshold", "dynamic", "d", {"static", "dynamic"});
  param_registry::instance().set("sw0.mmu.threshold", "static");
  EXPECT_EQ(mode(), "static");
  EXPECT_THROW(param_registry::instance().set("sw0.mmu.threshold", "adaptive"), config_error);
}

TEST(Params, RegistryForgetsDestroyedParams) {
  { param<uint64_t> tmp("tmp.count", 1, "d", 0, 10); }
  EXPECT_EQ(param_registry::instance().find("tmp.count"), nullptr);
}

TEST(Params, GlobMatching) {
  EXPECT_TRUE(glob_match("sw*.port*.pfc.xoff", "sw12.port3.pfc.xoff"));
  EXPECT_FALSE(glob_match("sw*.port*.pfc.xoff", "sw12.port3.pfc.xon_offset"));
  EXPECT_TRUE(glob_match("h?.mtu", "h1.mtu"));
  EXPECT_FALSE(glob_match("h?.mtu", "h12.mtu"));
  EXPECT_TRUE(glob_match("*", "anything"));
}
