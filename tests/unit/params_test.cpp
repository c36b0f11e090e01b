#include "models/core/params.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "models/core/fixed_array.h"
#include "models/core/stats.h"

using namespace sluice;

namespace {
const param_spec<byte_count> xoff_spec{"pfc.xoff", "d", byte_count{1000}, byte_count{0}, byte_count{1 << 30}};
const param_spec<byte_count> headroom_spec{"pfc.headroom", "d", byte_count{1000}, byte_count{0}, byte_count{1 << 30}};
const param_spec<double> alpha_spec{"sw0.mmu.alpha", "d", 0.125, 1.0 / 1024, 1024};
const choice_spec mode_spec{"sw0.mmu.threshold", "d", "dynamic", {"static", "dynamic"}};
const param_spec<uint64_t> count_spec{"tmp.count", "d", 1, 0, 10};
const param_spec<uint64_t> weight_spec{"weight", "DWRR weight", 1, 1, 100};
// A named owner, as a model module would be.
struct owner : sc_core::sc_module {
  explicit owner(sc_core::sc_module_name n) : sc_module(n) {}
};
}  // namespace

TEST(Params, WildcardsSetEveryMatchAndOnlyThose) {
  owner p0("sw0_port0"), p7("sw1_port7");
  param<byte_count> a(&p0, xoff_spec);
  param<byte_count> b(&p7, xoff_spec);
  param<byte_count> c(&p7, headroom_spec);
  EXPECT_EQ(a.name(), "sw0_port0.pfc.xoff");
  EXPECT_EQ(param_registry::instance().set("sw*_port*.pfc.xoff", "96KiB"), 2u);
  EXPECT_EQ(a().bytes, 96u * 1024);
  EXPECT_EQ(b().bytes, 96u * 1024);
  EXPECT_EQ(c().bytes, 1000u);
  EXPECT_EQ(a.default_string(), "1KB");
  EXPECT_EQ(a.value_string(), "96KiB");
}

TEST(Params, RejectsOutOfRangeBadUnitsAndUnknownNames) {
  param<double> alpha(nullptr, alpha_spec);
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
  choice_param mode(nullptr, mode_spec);
  param_registry::instance().set("sw0.mmu.threshold", "static");
  EXPECT_EQ(mode(), "static");
  EXPECT_THROW(param_registry::instance().set("sw0.mmu.threshold", "adaptive"), config_error);
}

TEST(Params, AChoiceThisBuildLeavesOutSaysWhy) {
  // As an RTL policy in a build without Verilator: the usual error, then the reason.
  static const absent_choice missing{"adaptive", "built only with the adaptive option"};
  choice_param mode(nullptr, mode_spec);
  try {
    mode.set_from_string("adaptive");
    FAIL() << "accepted";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(),
                 "sw0.mmu.threshold: 'adaptive' is not one of {static, dynamic} (adaptive: built only with the "
                 "adaptive option)");
  }
  try {
    mode.set_from_string("red");
    FAIL() << "accepted";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "sw0.mmu.threshold: 'red' is not one of {static, dynamic}");
  }
}

TEST(Params, RegistryForgetsDestroyedParams) {
  { param<uint64_t> tmp(nullptr, count_spec); }
  EXPECT_EQ(param_registry::instance().find("tmp.count"), nullptr);
}

TEST(Params, PerClassNamesComeFromTheOwnerAndTheClass) {
  owner port("port3");
  param<uint64_t> w2(&port, weight_spec, 2);
  param<uint64_t> w5(&port, weight_spec, 5);
  EXPECT_EQ(w2.name(), "port3.prio2.weight");
  EXPECT_EQ(w5.name(), "port3.prio5.weight");
  EXPECT_STREQ(w5.description(), "DWRR weight");
  EXPECT_EQ(param_registry::instance().set("port3.prio5.weight", "7"), 1u);
  EXPECT_EQ(w2(), 1u);
  EXPECT_EQ(w5(), 7u);
  EXPECT_EQ(param_registry::instance().find("port3.prio5.weight"), &w5);
}

// A choice keeps its default as a position in its spec: a default that is not the first choice
// is not an override, a new default moves it, and a set value survives a new default.
TEST(Params, AChoiceDefaultIsNotAnOverrideWhereverItStands) {
  choice_param mode(nullptr, mode_spec);  // default "dynamic", the second choice
  EXPECT_EQ(mode(), "dynamic");
  EXPECT_EQ(mode.default_string(), "dynamic");
  EXPECT_FALSE(mode.overridden());
  mode.set_default("static");
  EXPECT_EQ(mode(), "static");
  EXPECT_EQ(mode.default_string(), "static");
  EXPECT_FALSE(mode.overridden());
  mode.set_from_string("dynamic");
  EXPECT_TRUE(mode.overridden());
  mode.set_default("static");
  EXPECT_EQ(mode(), "dynamic");  // the user's value stays
  EXPECT_EQ(mode.index(), 1u);
}

// A port's per-class parameters are built in place in one block: each is registered under its
// class, found by name, and leaves the registry with the block.
TEST(Params, PerClassParametersInOneBlock) {
  owner port("port7");
  {
    fixed_array<param<uint64_t>> weights(
        4, [&](void* at, std::size_t i) { new (at) param<uint64_t>(&port, weight_spec, static_cast<int>(i)); });
    ASSERT_EQ(weights.size(), 4u);
    EXPECT_EQ(param_registry::instance().set("port7.prio?.weight", "9"), 4u);
    EXPECT_EQ(param_registry::instance().find("port7.prio3.weight"), &weights[3]);
    EXPECT_EQ(weights[2].name(), "port7.prio2.weight");
    uint64_t sum = 0;
    for (const param<uint64_t>& w : weights) sum += w();
    EXPECT_EQ(sum, 36u);
  }
  EXPECT_EQ(param_registry::instance().find("port7.prio0.weight"), nullptr);
}

// A block whose third element fails to build destroys the two already built (they leave the
// registry) and passes the error on.
TEST(Params, ABlockThatFailsHalfwayLeavesNothingRegistered) {
  const std::size_t before = param_registry::instance().size();
  const auto build = [](void* at, std::size_t i) {
    if (i == 2) throw config_error("third");
    new (at) param<uint64_t>(nullptr, count_spec, static_cast<int>(i));
  };
  EXPECT_THROW((fixed_array<param<uint64_t>>(4, build)), config_error);
  EXPECT_EQ(param_registry::instance().size(), before);
}

TEST(Params, ANameDeclaredTwiceIsAModelError) {
  param<uint64_t> a(nullptr, count_spec);
  param<uint64_t> b(nullptr, count_spec);
  EXPECT_THROW(param_registry::instance().all(), std::logic_error);
}

TEST(Params, GlobMatching) {
  EXPECT_TRUE(glob_match("sw*.port*.pfc.xoff", "sw12.port3.pfc.xoff"));
  EXPECT_FALSE(glob_match("sw*.port*.pfc.xoff", "sw12.port3.pfc.xon_offset"));
  EXPECT_TRUE(glob_match("h?.mtu", "h1.mtu"));
  EXPECT_FALSE(glob_match("h?.mtu", "h12.mtu"));
  EXPECT_TRUE(glob_match("*", "anything"));
}

namespace {
// A model with its parameter and its counter each declared in one member.
struct one_line_model {
  explicit one_line_model(const sc_core::sc_object* o) : owner_(o) {}
  const sc_core::sc_object* owner_;
  param<byte_count> kmin{owner_, [] {
                           return param_spec<byte_count>{"toy.kmin", "toy: marking threshold", byte_count{5000},
                                                         byte_count{0}, byte_count{1 << 20}};
                         }};
  choice_param mode{owner_, [] { return choice_spec{"toy.mode", "toy: marking rule", "all", {"all", "red"}}; }};
  stat_counter marks{owner_, nullptr, [] { return stat_desc{"toy.marks", "frames", "frames marked", nullptr}; }};
};
}  // namespace

// One member declaration carries the name, the typed default, the unit (from the type), the
// range and the description; it is kept once per declaration, not once per instance, and the
// value is set and range-checked like any parameter's.
TEST(Params, AOneLineDeclarationIsAParameterAndACounter) {
  owner a("one_line_a"), b("one_line_b");
  one_line_model ma(&a), mb(&b);
  EXPECT_EQ(ma.kmin.name(), "one_line_a.toy.kmin");
  EXPECT_EQ(ma.kmin().bytes, 5000u);
  EXPECT_EQ(ma.kmin.unit(), "bytes");
  EXPECT_EQ(ma.kmin.range_string(), "[0B, 1MiB]");
  EXPECT_STREQ(ma.kmin.description(), "toy: marking threshold");
  EXPECT_EQ(ma.kmin.description(), mb.kmin.description()) << "one spec per declaration, shared by the instances";
  EXPECT_EQ(param_registry::instance().set("one_line_b.toy.kmin", "7KB"), 1u);
  EXPECT_EQ(mb.kmin().bytes, 7000u);
  EXPECT_EQ(ma.kmin().bytes, 5000u);
  EXPECT_THROW(param_registry::instance().set("one_line_a.toy.kmin", "2MiB"), config_error);
  // A choice is declared the same way.
  EXPECT_EQ(ma.mode.name(), "one_line_a.toy.mode");
  EXPECT_EQ(ma.mode(), "all");
  EXPECT_EQ(ma.mode.range_string(), "{all, red}");
  EXPECT_EQ(ma.mode.description(), mb.mode.description());
  EXPECT_EQ(param_registry::instance().set("one_line_b.toy.mode", "red"), 1u);
  EXPECT_EQ(mb.mode.index(), 1u);
  EXPECT_EQ(ma.mode.index(), 0u);
  EXPECT_THROW(param_registry::instance().set("one_line_a.toy.mode", "blue"), config_error);

  ++ma.marks;
  mb.marks += 3;
  double seen_a = -1, seen_b = -1;
  for (const stat_registry::row& r : stat_registry::instance().rows()) {
    if (r.name == "one_line_a.toy.marks") seen_a = r.value();
    if (r.name == "one_line_b.toy.marks") {
      seen_b = r.value();
      EXPECT_STREQ(r.desc->unit, "frames");
    }
  }
  EXPECT_EQ(seen_a, 1);
  EXPECT_EQ(seen_b, 3);
}

// The always-on invariants visit every counter (stat_registry::for_each_counter) through each
// table's mask of counters, found at registration: on random tables (gauges and counters mixed,
// tables of gauges only, tables longer than the mask, per-class or not) the visit must be the
// walk that tests every statistic's kind, in the same order: registration, class, table position.
TEST(Stats, EveryCounterIsVisitedAsTheWalkOverEveryKindFindsIt) {
  std::mt19937_64 rng(23);
  std::vector<std::vector<stat_desc>> tables(300);
  std::vector<int> classes(tables.size());
  stat_registry& registry = stat_registry::instance();
  const std::size_t base = registry.registrations();
  const double value = 0;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const std::size_t n = 1 + rng() % (rng() % 8 == 0 ? 70 : 12);
    const int share = static_cast<int>(rng() % 4);  // 0: gauges only
    for (std::size_t i = 0; i < n; ++i)
      tables[t].push_back({"s", "u", "d", [](const void*, int) { return 0.0; },
                           static_cast<int>(rng() % 4) < share ? stat_kind::counter : stat_kind::gauge});
    classes[t] = rng() % 2 ? 0 : 1 + static_cast<int>(rng() % 16);
    registry.add(nullptr, "mask_test", tables[t].data(), n, &value, classes[t]);
  }
  std::vector<std::tuple<const stat_desc*, int, uint32_t>> visited, walked;
  registry.for_each_counter([&](const stat_registry::counter_ref& c) {
    if (c.registration >= base) visited.emplace_back(c.desc, c.cls, c.registration);
  });
  std::size_t long_counters = 0;
  for (std::size_t t = 0; t < tables.size(); ++t)
    for (int k = 0; k < std::max(classes[t], 1); ++k)
      for (std::size_t i = 0; i < tables[t].size(); ++i)
        if (tables[t][i].kind == stat_kind::counter) {
          walked.emplace_back(&tables[t][i], classes[t] > 0 ? k : -1, static_cast<uint32_t>(base + t));
          long_counters += i >= 32;
        }
  EXPECT_EQ(visited, walked);
  EXPECT_GT(long_counters, 50u);  // past the mask's 32 bits
  registry.forget_since(base);
}
