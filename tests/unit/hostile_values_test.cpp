// Hostile values (NaN, infinity, negative, 2^64, unknown units) in every value type, as a
// parameter value and at every scenario key that takes one: each is a one-line config_error
// naming the key and the value; nothing is accepted, wrapped or clamped silently. The files and
// outputs of the hostile-input suite are in tests/system/hostile_input_test.cpp.
#include <gtest/gtest.h>

#include <functional>

#include "models/core/params.h"
#include "platforms/scenario.h"
#include "tests/support/one_param_each.h"

using namespace sluice;

namespace {

// Expects `action` to throw a config_error of one line that contains every fragment.
void expect_error(const std::function<void()>& action, const std::vector<std::string>& fragments) {
  try {
    action();
    ADD_FAILURE() << "no error; expected one naming " << fragments.front();
  } catch (const config_error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const std::string& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

// The hostile numbers, each with the unit its type takes ("" for plain numbers).
std::vector<std::string> hostile(const std::string& unit) {
  std::vector<std::string> v;
  for (const char* n : {"nan", "NaN", "inf", "-inf", "infinity", "-1", "-0.5", "18446744073709551616",
                        "18446744073709551615", "1e400", "-1e400", "1e-400x", ".nan", ".inf"})
    v.push_back(n + unit);
  return v;
}

}  // namespace

TEST(HostileValues, EveryParameterTypeRejectsNanInfinityNegativeAndTwoToThe64) {
  test::one_param_each p;
  const std::pair<param_base*, std::string> typed[] = {{&p.rate, "Gbps"}, {&p.bytes, "B"}, {&p.time, "us"},
                                                       {&p.number, ""},   {&p.count, ""},  {&p.flag, ""},
                                                       {&p.mode, ""}};
  for (const auto& [param, unit] : typed)
    for (const std::string& text : hostile(unit)) {
      expect_error([&, param = param] { param_registry::instance().set(param->name(), text); },
                   {param->name(), "'" + text + "'"});
      EXPECT_FALSE(param->overridden()) << param->name() << " = " << text;
    }
  // The value is left as it was.
  EXPECT_EQ(p.rate().bps, 40e9);
  EXPECT_EQ(p.bytes().bytes, 1500u);
  EXPECT_EQ(p.count(), 8u);
  EXPECT_DOUBLE_EQ(p.number(), 0.5);
}

TEST(HostileValues, UnknownUnitsAreNamedWithTheUnitsThatExist) {
  test::one_param_each p;
  const struct {
    param_base* param;
    const char* text;
    const char* says;
  } cases[] = {{&p.rate, "40Gbs", "needs a rate unit (bps"},
               {&p.rate, "40GBps", "needs a rate unit"},
               {&p.rate, "40 parsecs", "needs a rate unit"},
               {&p.rate, "40", "needs a rate unit"},
               {&p.bytes, "10KiBps", "needs a size unit (B"},
               {&p.bytes, "100.5 B", "not a whole number of bytes"},
               {&p.bytes, "3 fortnights", "needs a size unit"},
               {&p.time, "1h", "needs a time unit (ps"},
               {&p.time, "5", "needs a time unit"},
               {&p.time, "5 sec", "needs a time unit"},
               {&p.number, "0.5%", "must be a plain number"},
               {&p.count, "12 frames", "must be a whole number"},
               {&p.count, "1e3", "must be a whole number"}};
  for (const auto& c : cases)
    expect_error([&] { c.param->set_from_string(c.text); }, {c.param->name(), c.text, c.says});
}

TEST(HostileValues, EveryScenarioValueKeyRejectsThem) {
  // One scenario key of each place a value is read, with the text that replaces X.
  const struct {
    const char* yaml;
    const char* key;
    const char* unit;
  } keys[] = {
      {"platform: {kind: incast, senders: 2, link_rate: X}", "link_rate", "Gbps"},
      {"platform: {kind: incast, senders: 2, link_delay: X}", "link_delay", "us"},
      {"platform: {kind: incast, senders: X}", "senders", ""},
      {"traffic: [{kind: constant, src: h0, dst: r0, rate: X}]", "traffic[0].rate", "Gbps"},
      {"traffic: [{kind: finite, src: h0, dst: r0, size: X}]", "traffic[0].size", "B"},
      {"traffic: [{kind: constant, src: h0, dst: r0, rate: 1Gbps, start: X}]", "traffic[0].start", "us"},
      {"traffic: [{kind: constant, src: h0, dst: r0, rate: 1Gbps, count: X}]", "traffic[0].count", ""},
      {"traffic: [{kind: constant, src: h0, dst: r0, rate: 1Gbps, priority: X}]", "traffic[0].priority", ""},
      {"traffic: [{kind: onoff, src: h0, dst: r0, rate: 1Gbps, on: X, off: 1us}]", "traffic[0].on", "us"},
      {"traffic: [{kind: workload, src: h0, dst: r0, cdf: websearch, load: X, stop: 1ms}]", "traffic[0].load", ""},
      {"run: {until: X}", "run.until", "us"},
      {"run: {sample_period: X}", "run.sample_period", "us"},
      {"run: {seed: X}", "run.seed", ""},
      {"run: {stop_when_done: X}", "run.stop_when_done", ""},
      {"events: [{at: X, link: h0-sw0, rate: 1Gbps}]", "events[0].at", "us"},
      {"events: [{at: 1us, link: h0-sw0, rate: X}]", "events[0].rate", "Gbps"},
  };
  for (const auto& k : keys)
    for (const std::string& value : hostile(k.unit)) {
      std::string yaml = k.yaml;
      yaml.replace(yaml.find('X'), 1, "\"" + value + "\"");
      if (yaml.rfind("platform", 0) != 0) yaml = "platform: {kind: incast, senders: 2}\n" + yaml;
      expect_error([&] { load_scenario_text(yaml, "t.yaml"); }, {k.key, "'" + value + "'"});
    }
}
