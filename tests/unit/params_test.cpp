#include "models/core/params.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

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

namespace {
const param_spec<uint64_t> live_weight_spec{"weight", "DWRR weight", 1, 1, 100, param_change::live};
const choice_spec sched_choice_spec{"sched", "d", "dwrr", {"strict", "dwrr", "other"}};
struct counting_listener : param_listener {
  int changes = 0;
  void param_changed(const param_base&) override { ++changes; }
};
std::string inert_odd(const void*, const param_base& p) { return p.cls() % 2 ? "odd class" : ""; }
// Text with the first `from` replaced by `to` (the family's owner's name by the plain one's).
std::string swapped(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}
// What a registry call did: how many matched, or the error it threw.
template <class Call>
std::string outcome(Call call) {
  try {
    return "ok " + std::to_string(call());
  } catch (const config_error& e) {
    return std::string("error ") + e.what();
  }
}
}  // namespace

// A family of per-class parameters (each made only when named) against the plain parameters made
// one by one, on random class counts and random writes: every registry call (set, set_live,
// find, matching) names, matches, refuses and sets the same in the same order, the values and
// overrides read the same, listeners and inertness reach the made ones, and the families leave
// the registry whole.
TEST(Params, AFamilyOfClassParametersBehavesAsItsParametersMadeOneByOne) {
  std::mt19937 rng(23);
  param_registry& registry = param_registry::instance();
  const std::size_t empty = registry.size();
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 16);
    const std::string fam_name = "fam" + std::to_string(trial), plain_name = "pln" + std::to_string(trial);
    owner fam_owner(fam_name.c_str()), plain_owner(plain_name.c_str());
    counting_listener fam_heard, plain_heard;
    class_params<param<uint64_t>> weights;
    class_params<choice_param> scheds;
    weights.declare(&fam_owner, live_weight_spec, n);
    scheds.declare(&fam_owner, sched_choice_spec, n);
    weights.on_change(&fam_heard);
    weights.inert_when(inert_odd, nullptr);
    std::vector<std::unique_ptr<param<uint64_t>>> plain_weights;
    std::vector<std::unique_ptr<choice_param>> plain_scheds;
    for (int k = 0; k < n; ++k)
      plain_weights.push_back(std::make_unique<param<uint64_t>>(&plain_owner, live_weight_spec, k));
    for (int k = 0; k < n; ++k)
      plain_scheds.push_back(std::make_unique<choice_param>(&plain_owner, sched_choice_spec, k));
    for (auto& w : plain_weights) {
      w->on_change(&plain_heard);
      w->inert_when(inert_odd, nullptr);
    }
    const auto names_of = [&](const std::string& prefix) {
      std::vector<std::string> out;
      for (const param_base* p : registry.matching(prefix + ".*")) out.push_back(p->name());
      return out;
    };
    for (int op = 0; op < 24; ++op) {
      const std::string cls = rng() % 3 ? std::to_string(rng() % (n + 2)) : rng() % 2 ? "?" : "1*";
      const std::string leaf = rng() % 2 ? "weight" : "sched";
      const std::string value = leaf == "weight" ? std::to_string(rng() % 120)
                                                 : std::vector<std::string>{"strict", "dwrr", "other", "x"}[rng() % 4];
      const std::string fam_pattern = fam_name + ".prio" + cls + "." + leaf;
      const std::string plain_pattern = plain_name + ".prio" + cls + "." + leaf;
      switch (rng() % 4) {
        case 0: {
          const bool require = rng() % 2;
          EXPECT_EQ(swapped(outcome([&] { return registry.set(fam_pattern, value, require); }), fam_name, plain_name),
                    outcome([&] { return registry.set(plain_pattern, value, require); }))
              << fam_pattern << " = " << value;
          break;
        }
        case 1:
          EXPECT_EQ(swapped(outcome([&] { return registry.set_live(fam_pattern, value); }), fam_name, plain_name),
                    outcome([&] { return registry.set_live(plain_pattern, value); }))
              << fam_pattern << " = " << value;
          break;
        case 2: {
          const param_base* f = registry.find(fam_pattern);
          const param_base* p = registry.find(plain_pattern);
          ASSERT_EQ(f != nullptr, p != nullptr) << fam_pattern;
          if (f) {
            EXPECT_EQ(f->value_string(), p->value_string());
            EXPECT_EQ(f->inert_reason(), p->inert_reason());
            EXPECT_EQ(f->live(), p->live());
          }
          break;
        }
        default: {
          std::vector<std::string> fam = names_of(fam_name), plain = names_of(plain_name);
          for (std::string& s : fam) s = swapped(s, fam_name, plain_name);
          EXPECT_EQ(fam, plain);
        }
      }
      for (int k = 0; k < n; ++k) {
        EXPECT_EQ(weights.value(k), (*plain_weights[k])()) << "class " << k;
        EXPECT_EQ(scheds.value(k), (*plain_scheds[k])()) << "class " << k;
        EXPECT_EQ(weights.made(k) && weights[k].overridden(), plain_weights[k]->overridden());
        EXPECT_EQ(weights.name(k), swapped(plain_weights[k]->name(), plain_name, fam_name));
      }
      EXPECT_EQ(fam_heard.changes, plain_heard.changes);
    }
  }
  EXPECT_EQ(registry.size(), empty);
}

// Until named, a family's class is no parameter at all: declaring one makes none, naming one
// makes that one (the family's one entry in the registry stands for it), the listing makes the
// rest. A family whose entry moved (a parameter before it left) is found where it went.
TEST(Params, AFamilyMakesAClassParameterOnlyWhenNamed) {
  param_registry& registry = param_registry::instance();
  const std::size_t empty = registry.size();
  {
    owner other("port8");
    auto before = std::make_unique<param<uint64_t>>(&other, count_spec);
    class_params<choice_param> scheds;
    scheds.declare(&other, sched_choice_spec, 3);
    before.reset();                         // the family's entry takes its place
    EXPECT_EQ(registry.size(), empty + 1);  // one entry for the three classes
    EXPECT_EQ(registry.set("port8.prio2.sched", "strict"), 1u);
    EXPECT_EQ(scheds.value(2), "strict");
    EXPECT_FALSE(scheds.made(0) || scheds.made(1));
    EXPECT_EQ(registry.find("port8.prio2.sched"), &scheds[2]);
    std::vector<std::string> listed;
    for (const param_base* p : registry.declared_since(empty)) listed.push_back(p->name());
    EXPECT_EQ(listed, (std::vector<std::string>{"port8.prio0.sched", "port8.prio1.sched", "port8.prio2.sched"}));
  }
  EXPECT_EQ(registry.size(), empty);
  owner port("port9");
  param<uint64_t> after(&port, count_spec);
  class_params<param<uint64_t>> weights;
  weights.declare(&port, live_weight_spec, 8);
  for (int k = 0; k < 8; ++k) EXPECT_FALSE(weights.made(k));
  EXPECT_EQ(weights.value(5), 1u);
  EXPECT_EQ(registry.set("port9.prio5.weight", "7"), 1u);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(weights.made(k), k == 5);
  EXPECT_EQ(weights.value(5), 7u);
  EXPECT_EQ(registry.find("port9.prio5.weight"), &weights[5]);
  std::vector<std::string> listed;
  for (const param_base* p : registry.matching("port9.*")) listed.push_back(p->name());
  EXPECT_EQ(listed, (std::vector<std::string>{"port9.tmp.count", "port9.prio0.weight", "port9.prio1.weight",
                                              "port9.prio2.weight", "port9.prio3.weight", "port9.prio4.weight",
                                              "port9.prio5.weight", "port9.prio6.weight", "port9.prio7.weight"}));
  for (int k = 0; k < 8; ++k) EXPECT_TRUE(weights.made(k));
}
