// A replacement MMU bound to a switch stays bound, and everything that reports buffer use
// (summary ports[], the counters) reads it through the bound mmu_if, not the default block.
#include <gtest/gtest.h>

#include "tests/support/switch_bench.h"

using namespace sluice;

TEST(ReplacedMmu, StaysBoundAndReportsReadThroughIt) {
  auto sim = test::make_sim(test::one_switch("15000B", "run: {until: 20us}\n"));
  switch_model& sw = *sim->fabric_model().switches[0];
  test::counting_mmu mmu(sw.mmu_block);
  mmu.reported = pg_usage{0, 0, 0, 123456, 789};  // no real buffer holds this
  mmu.reported_headroom = 4321;                   // nor is this configured anywhere
  sw.bind_mmu(mmu);
  sim->run();
  EXPECT_EQ(&sw.active_mmu(), static_cast<const mmu_if*>(&mmu));
  EXPECT_EQ(mmu.admits.size(), 10u);  // 15000 B in 1500-byte frames
  EXPECT_EQ(mmu.releases.size(), 10u);
  const int in = test::port_toward(sim->fabric_model(), "sw0", "a", 2);
  nlohmann::json s = sim->summary();
  nlohmann::json port = test::find_port(s, "sw0", "a", 3);
  ASSERT_FALSE(port.is_null());
  EXPECT_EQ(port["max_ingress_bytes"].get<uint64_t>(), 123456u);
  EXPECT_EQ(port["max_headroom_bytes"].get<uint64_t>(), 789u);
  EXPECT_EQ(port["headroom_bytes"].get<uint64_t>(), 4321u);  // configuration, also through the bound MMU
  const std::string prio = "sw0.port" + std::to_string(in) + ".prio3.";
  EXPECT_EQ(s["counters"][prio + "ingress_peak_bytes"].get<double>(), 123456.0);
  EXPECT_EQ(s["counters"][prio + "headroom_peak_bytes"].get<double>(), 789.0);
  // The default block underneath saw the real frames: at most the two in flight at once.
  EXPECT_LT(sw.mmu_block.usage(in, 3).peak_total, 123456u);
}

// The switch's own path (its MMU's admission and release called by name with the time it read,
// the built-in forwarding block's route inline, the enqueue a tail call) must do what the
// interfaces' path does. Two disjoint incasts of four senders at 40 Gb/s into one 40 Gb/s port,
// alike but for their names: sw0 keeps its own blocks, sw1 has the same blocks bound through
// pass-through interfaces (a bound MMU and forwarding block, which take the general paths).
// Both must admit, pause, queue and send alike, port for port and class for class.
namespace {
struct passing_forwarding : forwarding_if {
  const forwarding_if& inner;
  mutable uint64_t lookups = 0;
  explicit passing_forwarding(const forwarding_if& f) : inner(f) {}
  int route(const packet_header& h, int in_port) const override {
    ++lookups;
    return inner.route(h, in_port);
  }
};
}  // namespace

TEST(SwitchPaths, OwnBlocksAndBoundInterfacesRunAlike) {
  std::string nics, links, traffic;
  for (const char* side : {"a", "b"}) {
    const std::string sw = side == std::string("a") ? "sw0" : "sw1", sink = std::string("r") + side;
    for (int i = 0; i < 4; ++i) {
      const std::string h = side + std::to_string(i);
      nics += h + ", ";
      links += "{a: " + h + ", b: " + sw + ", rate: 40Gbps, delay: 1us}, ";
      traffic += "{kind: constant, src: " + h + ", dst: " + sink + ", rate: 40Gbps, priority: 3}, ";
    }
    nics += sink + ", ";
    links += "{a: " + sw + ", b: " + sink + ", rate: 40Gbps, delay: 1us}, ";
  }
  auto pop2 = [](std::string s) { return s.substr(0, s.size() - 2); };
  const std::string yaml = "platform:\n  kind: custom\n  switches: [sw0, sw1]\n  nics: [" + pop2(nics) +
                           "]\n  links: [" + pop2(links) + "]\ntraffic: [" + pop2(traffic) +
                           "]\nrun: {until: 300us}\nparams: {\"*.mtu\": 1000B}\n";
  auto sim = test::make_sim(yaml);
  switch_model& own = *sim->fabric_model().switches[0];
  switch_model& bound = *sim->fabric_model().switches[1];
  test::counting_mmu mmu(bound.mmu_block);
  passing_forwarding fwd(bound.forwarding);
  bound.bind_mmu(mmu);
  bound.bind_forwarding(fwd);
  sim->run();
  ASSERT_EQ(own.ports.size(), 5u);
  ASSERT_EQ(bound.ports.size(), 5u);
  EXPECT_GT(mmu.admits.size(), 5000u);  // the bound switch took the interfaces' path
  EXPECT_EQ(fwd.lookups, mmu.admits.size());
  const uint64_t end = now_ps();
  uint64_t pauses = 0, sent = 0;
  for (int p = 0; p < 5; ++p) {
    const switch_port &a = *own.ports[p], &b = *bound.ports[p];
    EXPECT_EQ(a.mac.frames_sent(), b.mac.frames_sent()) << p;
    EXPECT_EQ(a.flow_control.xoff_sent(3), b.flow_control.xoff_sent(3)) << p;
    EXPECT_EQ(a.flow_control.xon_sent(3), b.flow_control.xon_sent(3)) << p;
    EXPECT_EQ(a.drops(3), b.drops(3)) << p;
    pauses += a.flow_control.xoff_sent(3);
    sent += a.mac.frames_sent();
    for (int q = 0; q < own.classes(); ++q) {
      const queue_stats &x = a.egress.queue(q), &y = b.egress.queue(q);
      EXPECT_EQ(x.frames_out, y.frames_out) << p << " " << q;
      EXPECT_EQ(x.bytes_out, y.bytes_out) << p << " " << q;
      EXPECT_EQ(x.max_bytes, y.max_bytes) << p << " " << q;
      EXPECT_EQ(x.mean_bytes(end), y.mean_bytes(end)) << p << " " << q;
      const pg_usage u = own.mmu_block.usage(p, q), v = bound.mmu_block.usage(p, q);
      EXPECT_EQ(u.total(), v.total()) << p << " " << q;
      EXPECT_EQ(u.peak_total, v.peak_total) << p << " " << q;
      EXPECT_EQ(u.peak_headroom, v.peak_headroom) << p << " " << q;
    }
  }
  EXPECT_GT(pauses, 5u);  // congested: the senders were paused
  EXPECT_GT(sent, 1400u);
  EXPECT_EQ(own.mmu_block.peak_in_use_bytes(), bound.mmu_block.peak_in_use_bytes());
  EXPECT_EQ(own.mmu_block.mean_in_use_bytes(end), bound.mmu_block.mean_in_use_bytes(end));
}
