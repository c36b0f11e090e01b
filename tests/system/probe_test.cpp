// Probe points: a subscriber follows one frame id from the sending NIC through two switches to
// the receiver, with a timestamp at each step that the link and pipeline timing predict.
#include "models/core/probe.h"

#include <gtest/gtest.h>

#include <map>

#include "models/core/units.h"
#include "platforms/listing.h"
#include "platforms/timed_callbacks.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
// a -> sw0 -> sw1 -> b, 40 Gb/s and 1 us links, one 6 KB flow of 1500-byte frames.
const char* two_switches = R"(
platform:
  kind: custom
  switches: [sw0, sw1]
  nics: [a, b]
  links: [{a: a, b: sw0, rate: 40Gbps, delay: 1us}, {a: sw0, b: sw1, rate: 40Gbps, delay: 1us},
          {a: sw1, b: b, rate: 40Gbps, delay: 1us}]
traffic: [{kind: finite, src: a, dst: b, size: 6KB, priority: 3}]
params: {"a.mtu": 1500B}
run: {until: 100us}
)";

struct step {
  std::string point;
  uint64_t time_ps;
  uint64_t value;
};
}  // namespace

TEST(Probes, FollowOneFrameThroughTwoSwitches) {
  auto sim = test::make_sim(two_switches);
  std::vector<step> steps;
  uint64_t followed = 0;  // the id of the flow's second data frame (it queues behind the first)
  int data_frames_sent = 0;
  probe_registry& reg = probe_registry::instance();
  reg.subscribe("a.*.tx_start", [&](const probe_point&, const probe_event& e) {
    if (e.frame->kind == frame_kind::data && ++data_frames_sent == 2) followed = e.frame->id();
  });
  auto record = [&](const probe_point& p, const probe_event& e) {
    if (e.frame && e.frame->id() == followed && followed) steps.push_back({p.name(), e.time_ps, e.value});
  };
  for (const char* pattern : {"*.tx_start", "*.rx_end", "*.egress.enqueue", "*.egress.dequeue"})
    reg.subscribe(pattern, record);
  sim->run();

  ASSERT_NE(followed, 0u);
  std::vector<std::string> names;
  for (const step& s : steps) names.push_back(s.point);
  const std::vector<std::string> expected = {
      "a.port0.mac.tx_start",   "sw0.port0.mac.rx_end", "sw0.port1.egress.enqueue", "sw0.port1.egress.dequeue",
      "sw0.port1.mac.tx_start", "sw1.port0.mac.rx_end", "sw1.port1.egress.enqueue", "sw1.port1.egress.dequeue",
      "sw1.port1.mac.tx_start", "b.port0.mac.rx_end"};
  ASSERT_EQ(names, expected);

  // Each wire hop takes serialization + 1 us; each switch holds the frame for its 500 ns
  // pipeline (the queue ahead of it has left by then: the same rate in and out).
  const uint64_t size = steps[0].value;
  const uint64_t hop = data_rate{40e9}.serialization_ps(size) + 1'000'000;
  const uint64_t pipeline = 500'000;
  EXPECT_EQ(steps[1].time_ps - steps[0].time_ps, hop);
  EXPECT_EQ(steps[2].time_ps, steps[1].time_ps);  // queued at arrival
  EXPECT_EQ(steps[3].time_ps - steps[2].time_ps, pipeline);
  EXPECT_EQ(steps[4].time_ps, steps[3].time_ps);  // to the wire at once
  EXPECT_EQ(steps[5].time_ps - steps[4].time_ps, hop);
  EXPECT_EQ(steps[7].time_ps - steps[6].time_ps, pipeline);
  EXPECT_EQ(steps[9].time_ps - steps[8].time_ps, hop);
  // The frame kept its id and size from end to end.
  for (const char* leaf : {"tx_start", "rx_end"})
    for (const step& s : steps)
      if (s.point.find(leaf) != std::string::npos) {
        EXPECT_EQ(s.value, size) << s.point;
      }
}

TEST(Probes, FrameIdsAreUniqueAndKeptAcrossSwitches) {
  auto sim = test::make_sim(two_switches);
  std::vector<uint64_t> sent, received;
  probe_registry& reg = probe_registry::instance();
  reg.subscribe("a.port0.mac.tx_start", [&](const probe_point&, const probe_event& e) {
    if (e.frame->kind == frame_kind::data) sent.push_back(e.frame->id());
  });
  reg.subscribe("b.port0.mac.rx_end", [&](const probe_point&, const probe_event& e) {
    if (e.frame->kind == frame_kind::data) received.push_back(e.frame->id());
  });
  sim->run();
  ASSERT_EQ(sent.size(), 4u);  // 6 KB in 1500-byte frames
  EXPECT_EQ(received, sent);
  for (std::size_t i = 1; i < sent.size(); ++i) EXPECT_NE(sent[i], sent[i - 1]);
}

TEST(Probes, PauseOnAndOffAtTheGateTimes) {
  // Incast: the switch pauses both senders. Each pause_on is followed by its pause_off, later,
  // and the paused time they add up to is the statistic's.
  auto sim = test::make_sim(test::two_senders(3, 3, "params: {\"sw0.mmu.threshold\": static}\nrun: {until: 300us}\n"));
  struct interval {
    uint64_t on = 0, total = 0;
    bool paused = false;
  };
  std::map<std::string, interval> at;
  int ons = 0, offs = 0;
  probe_registry& reg = probe_registry::instance();
  reg.subscribe("h*.pause_on", [&](const probe_point& p, const probe_event& e) {
    interval& i = at[p.name()];
    EXPECT_FALSE(i.paused) << p.name();
    i.paused = true;
    i.on = e.time_ps;
    EXPECT_GT(e.value, e.time_ps);
    ++ons;
  });
  reg.subscribe("h*.pause_off", [&](const probe_point& p, const probe_event& e) {
    interval& i = at[std::string(p.name()).replace(p.name().size() - 3, 3, "on")];
    EXPECT_TRUE(i.paused) << p.name();
    EXPECT_GE(e.time_ps, i.on);
    i.paused = false;
    i.total += e.time_ps - i.on;
    ++offs;
  });
  sim->run();
  EXPECT_GT(ons, 0);
  EXPECT_GE(offs, ons - 2);
  for (const auto& [name, i] : at) {
    const std::string port = name.substr(0, name.find(".pfc"));  // h0.port0
    const auto rows = list_stats(port + ".prio3.paused_time", "test");
    ASSERT_EQ(rows.size(), 1u);
    const uint64_t now = to_ps(sc_core::sc_time_stamp());
    const double expected_ns = static_cast<double>(i.total + (i.paused ? now - i.on : 0)) / 1000.0;
    EXPECT_NEAR(rows[0].value(), expected_ns, 1e-3) << name;
  }
}

TEST(Probes, UnknownPatternIsAOneLineError) {
  auto sim = test::make_sim(two_switches);
  try {
    probe_registry::instance().subscribe("sw9.*", [](const probe_point&, const probe_event&) {});
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "probe: 'sw9.*' matches no probe point (see `sluice probes`)");
  }
}

TEST(Probes, ARateUpdateTakesEffectAfterTheNicsUpdateLatency) {
  // A script's rate write at 10 us reaches the pacer 2 us later; the rate_change probe says when.
  auto sim = test::make_sim(
      test::two_nics("{kind: constant, src: a, dst: b, rate: 40Gbps, priority: 3}", "run: {until: 30us}\n"),
      {{"a.rate_update_latency", "2us"}});
  nic& a = *sim->fabric_model().nics[0];
  std::vector<std::pair<uint64_t, uint64_t>> changes;  // (time, rate)
  probe_registry::instance().subscribe("a.rate_change", [&](const probe_point&, const probe_event& e) {
    changes.push_back({e.time_ps, e.value});
  });
  timed_callbacks calls("calls", 30'000'000);
  uint64_t rate_at_11us = 0;
  calls.add(10'000'000, 0, [&] { a.limiter(0).set_rate(data_rate{10e9}); });
  calls.add(11'000'000, 0, [&] { rate_at_11us = static_cast<uint64_t>(a.limiter(0).rate().bps); });
  sim->run();
  EXPECT_EQ(rate_at_11us, 0u);  // still unlimited 1 us after the write
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].first, 12'000'000u);
  EXPECT_EQ(changes[0].second, 10'000'000'000u);
}

TEST(Probes, CreditStarvationBeginsAndEndsAddUpToTheBlockedTime) {
  // The InfiniBand incast: senders starve for credit. Each credit_starved is followed by its
  // credit_resumed, whose value is the wait; their sum per port is the blocked-time statistic.
  auto sim = test::make_sim(
      "platform: {kind: incast, link_layer: ib, senders: 4, link_rate: 40Gbps, link_delay: 1us}\n"
      "traffic: [{kind: constant, src: \"h*\", dst: r0, rate: 40Gbps, priority: 3}]\nrun: {until: 200us}\n");
  struct wait {
    bool open = false;
    uint64_t since = 0, total = 0;
  };
  std::map<std::string, wait> at;  // by port
  int begins = 0, ends = 0;
  probe_registry& reg = probe_registry::instance();
  auto port_of = [](const probe_point& p) { return p.name().substr(0, p.name().find(".credit.")); };
  reg.subscribe("*.credit_starved", [&](const probe_point& p, const probe_event& e) {
    wait& w = at[port_of(p)];
    EXPECT_FALSE(w.open) << p.name();
    EXPECT_EQ(e.cls, 3);
    w.open = true;
    w.since = e.time_ps;
    ++begins;
  });
  reg.subscribe("*.credit_resumed", [&](const probe_point& p, const probe_event& e) {
    wait& w = at[port_of(p)];
    EXPECT_TRUE(w.open) << p.name();
    EXPECT_EQ(e.value, e.time_ps - w.since);
    w.open = false;
    w.total += e.value;
    ++ends;
  });
  sim->run();
  EXPECT_GT(begins, 10);
  EXPECT_GE(ends, begins - static_cast<int>(at.size()));
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  for (const auto& [port, w] : at) {
    const auto rows = list_stats(port + ".prio3.credit_blocked_time", "test");
    ASSERT_EQ(rows.size(), 1u) << port;
    EXPECT_NEAR(rows[0].value(), static_cast<double>(w.total + (w.open ? now - w.since : 0)) / 1e3, 1e-3) << port;
  }
}
