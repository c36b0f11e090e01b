#include "platforms/scenario.h"

#include <gtest/gtest.h>

using namespace sluice;

namespace {
const char* base = R"(
name: t
platform: {kind: incast, senders: 4, link_rate: 40Gbps, link_delay: 1us}
traffic:
  - {kind: constant, src: "h*", dst: r0, rate: 10Gbps, priority: 3}
run: {until: 1ms, seed: 7, sample_period: 5us}
)";

// Expects a config_error whose one-line message contains every fragment.
void expect_error(const std::string& yaml, std::initializer_list<const char*> fragments) {
  try {
    load_scenario_text(yaml, "t.yaml");
    ADD_FAILURE() << "no error for:\n" << yaml;
  } catch (const config_error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}
}  // namespace

TEST(Scenario, LoadsAndExpandsGlobs) {
  scenario s = load_scenario_text(base);
  EXPECT_EQ(s.topology.nodes.size(), 6u);  // sw0, h0..h3, r0
  EXPECT_EQ(s.topology.links.size(), 5u);
  ASSERT_EQ(s.flows.size(), 4u);
  EXPECT_EQ(s.flows[2].name, "h2->r0");
  EXPECT_DOUBLE_EQ(s.flows[0].rate.bps, 10e9);
  EXPECT_EQ(s.flows[0].priority, 3);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.until, sc_core::sc_time(1, sc_core::SC_MS));
}

TEST(Scenario, CountMakesNumberedFlows) {
  scenario s = load_scenario_text(replace(base, "{kind: constant, src: \"h*\", dst: r0, rate: 10Gbps, priority: 3}",
                                          "{kind: finite, src: [h1, h2], dst: r0, size: 64KB, count: 3}"));
  ASSERT_EQ(s.flows.size(), 6u);
  EXPECT_EQ(s.flows[4].name, "h2->r0#1");
  EXPECT_EQ(s.flows[4].size, 64000u);
}

TEST(Scenario, MalformedYamlGivesLineNumber) {
  expect_error("platform: {kind: incast\ntraffic: [", {"t.yaml:", "malformed"});
}

TEST(Scenario, UnknownKeysAreNamed) {
  expect_error(replace(base, "senders: 4", "senders: 4, sendrs: 5"), {"platform.sendrs", "unknown key"});
  expect_error(replace(base, "priority: 3}", "priority: 3, colour: red}"), {"traffic[0].colour", "unknown key"});
  expect_error(replace(base, "seed: 7", "seed: 7, util: 2ms"), {"run.util", "unknown key"});
  expect_error(std::string(base) + "extra: 1\n", {"scenario.extra", "unknown key"});
}

TEST(Scenario, WrongUnitsAreNamed) {
  expect_error(replace(base, "rate: 10Gbps", "rate: 10GB"), {"traffic[0].rate", "10GB"});
  expect_error(replace(base, "link_delay: 1us", "link_delay: 1 fortnight"), {"platform.link_delay", "fortnight"});
  expect_error(replace(base, "until: 1ms", "until: 1"), {"run.until", "'1'"});
}

TEST(Scenario, NegativeOrZeroRatesAreRejected) {
  expect_error(replace(base, "rate: 10Gbps", "rate: -10Gbps"), {"traffic[0].rate", "-10Gbps"});
  expect_error(replace(base, "rate: 10Gbps", "rate: 0Gbps"), {"traffic[0].rate", "0Gbps"});
  expect_error(replace(base, "link_rate: 40Gbps", "link_rate: 0bps"), {"platform.link_rate"});
  expect_error(replace(base, "until: 1ms", "until: 0ms"), {"run.until"});
}

TEST(Scenario, BadTrafficEndsAreNamed) {
  expect_error(replace(base, "dst: r0", "dst: r9"), {"traffic[0].dst", "r9", "matches no NIC"});
  expect_error(replace(base, "dst: r0", "dst: sw0"), {"traffic[0].dst", "is a switch"});
  expect_error(replace(base, "src: \"h*\"", "src: r0"), {"traffic[0]", "to itself"});
  expect_error(replace(base, "priority: 3", "priority: 8"), {"traffic[0].priority", "0..7"});
  expect_error(replace(base, "kind: constant", "kind: bursty"), {"traffic[0].kind", "bursty"});
}

TEST(Scenario, UnknownPlatformKindAndLinkEvents) {
  expect_error(replace(base, "kind: incast", "kind: torus"), {"platform.kind", "torus"});
  expect_error(std::string(base) + "events: [{at: 1us, link: sw0-r9, rate: 1Gbps}]\n", {"events[0].link", "sw0-r9"});
}

TEST(Scenario, AbsurdSizesAreBoundedNotAttempted) {
  expect_error(replace(base, "priority: 3}", "priority: 3, count: 99999999999}"), {"traffic[0].count", "99999999999"});
  expect_error(replace(base, "rate: 10Gbps", "rate: 100Tbps"), {"traffic[0].rate", "100Tbps", "valid range"});
  expect_error(replace(base, "link_rate: 40Gbps", "link_rate: 1e30Gbps"), {"platform.link_rate", "valid range"});
  expect_error(replace(base, "senders: 4", "senders: 100000"), {"platform.senders", "100000"});
  expect_error(replace(base, "senders: 4", "senders: 0x10"), {"platform.senders", "0x10"});
}

TEST(Scenario, WrongYamlShapesAreNamed) {
  expect_error(replace(base, "senders: 4", "senders: [1, 2]"), {"platform.senders", "single value"});
  expect_error("platform: {kind: custom, switches: [{name: s}], nics: [x], links: []}", {"platform.switches[0]"});
  expect_error(std::string(base) + "params: [a]\n", {"params", "mapping"});
  expect_error(replace(base, "traffic:\n  - {kind: constant", "traffic:\n  - 5\n  - {kind: constant"),
               {"traffic[0]", "mapping"});
}

TEST(Scenario, StopWhenDoneNeedsFlowsThatFinish) {
  expect_error(replace(base, "seed: 7,", "seed: 7, stop_when_done: true,"),
               {"run.stop_when_done", "h0->r0", "long-lived"});
  expect_error(replace(base, "seed: 7,", "seed: 7, stop_when_done: maybe,"), {"run.stop_when_done", "maybe"});
}

TEST(Scenario, DuplicateKeysAreErrors) {
  expect_error(replace(base, "link_rate: 40Gbps", "link_rate: 40Gbps, link_rate: 1Gbps"),
               {"platform.link_rate", "twice"});
  expect_error(replace(base, "rate: 10Gbps", "rate: 10Gbps, rate: 1Gbps"), {"traffic[0].rate", "twice"});
  expect_error(std::string(base) + "params: {\"h0.mtu\": 1000B, \"h0.mtu\": 1500B}\n", {"params.h0.mtu", "twice"});
  expect_error(std::string(base) + "? [a]\n: 1\n", {"scenario: a key must be a plain name"});
  expect_error(std::string(base) + "params: {[a]: 1}\n", {"params: a key must be a plain name"});
}

TEST(Scenario, NodeNamesAreCheckedAndEchoedOnOneLine) {
  const std::string custom =
      "platform: {kind: custom, switches: [s0], nics: [NAME, b], links: [{a: NAME, b: s0}, {a: b, b: s0}]}\n";
  auto with = [&](const std::string& name) {
    std::string s = custom;
    for (std::size_t at; (at = s.find("NAME")) != std::string::npos;) s.replace(at, 4, name);
    return s;
  };
  EXPECT_NO_THROW(load_scenario_text(with("h_0")));
  expect_error(with("\"a\\x01\""), {"platform: node name 'a\\x01'", "letters, digits or '_'"});
  expect_error(with("\"a\\nb\""), {"'a\\nb'"});  // the newline is escaped: still one line
  expect_error(with("\"a\xff\""), {"'a\\xFF'"});
  expect_error(with("\"h\u00e9\""), {"node name"});
  expect_error(with("_h"), {"'_h'", "starting with a letter or digit"});
  expect_error(with("a.b"), {"'a.b'"});
  expect_error(with(std::string(65, 'x')), {"1 to 64"});
  EXPECT_NO_THROW(load_scenario_text(with(std::string(64, 'x'))));
}

TEST(Scenario, NameAndDescriptionMustBeValidText) {
  EXPECT_EQ(load_scenario_text(std::string(base) + "description: \"two\\nlines \u00b5\"\n").description,
            "two\nlines \u00b5");
  expect_error(replace(base, "name: t", "name: \"a\\tb\""), {"name: 'a\\tb'", "control characters"});
  expect_error(replace(base, "name: t", "name: \"a\xff\""), {"name: 'a\\xFF'", "UTF-8"});
  expect_error(std::string(base) + "description: \"x\xc0\xaf\"\n", {"description:", "UTF-8"});
  expect_error(replace(base, "name: t", "name: " + std::string(300, 'n')), {"name:", "256"});
}

TEST(Scenario, OnlyOneYamlDocument) {
  expect_error(std::string(base) + "---\nrun: {until: 5ms}\n", {"t.yaml:", "more than one YAML document"});
  EXPECT_NO_THROW(load_scenario_text("---\n" + std::string(base)));  // a leading marker is fine
}

TEST(Scenario, EmptyPlatformsAreRejectedBeforeElaboration) {
  expect_error("platform: {kind: custom, switches: [], nics: [], links: []}\n", {"platform:", "no nodes"});
  expect_error("platform: {kind: custom, switches: [s0, s1], nics: [], links: [{a: s0, b: s1}]}\n",
               {"platform:", "no NICs"});
}

TEST(Scenario, PlatformsTooLargeToBuildAreRejectedWithTheEstimate) {
  expect_error("platform: {kind: leaf-spine, leaves: 384, spines: 256, hosts: 256}\n",
               {"platform:", "640 switches, 98304 NICs and 196608 links", "4.3 GiB", "the limit is 4 GiB"});
  EXPECT_NO_THROW(load_scenario_text("platform: {kind: leaf-spine, leaves: 256, spines: 256, hosts: 256}\n"));
  EXPECT_NO_THROW(load_scenario_text("platform: {kind: leaf-spine, leaves: 64, spines: 32, hosts: 64}\n"));
  EXPECT_NO_THROW(load_scenario_text("platform: {kind: incast, senders: 1000}\n"));
}
