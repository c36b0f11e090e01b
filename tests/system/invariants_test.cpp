// The always-on invariants (models/core/invariant.h, platforms/invariants.*): each one broken on
// purpose through invariant_test_hooks stops the run with a message naming the port, the class
// and the simulated time.
#include <gtest/gtest.h>

#include "models/core/invariant.h"
#include "tests/support/harness.h"

namespace sluice {
// The models befriend this struct; only the tests define it.
struct invariant_test_hooks {
  static egress_port::class_state& stats(egress_port& e, int cls) { return e.class_[cls]; }
  static void refresh_disarmed(pfc& fc) { fc.refresh_armed_ = false; }
  static void pause_counter(pfc& fc, int cls, uint64_t v) { fc.state_[cls].xoff_received = v; }
  static void pause_interval(pfc& fc, int cls, uint64_t from, uint64_t until) {
    fc.state_[cls].from_ps = from;
    fc.state_[cls].until_ps = until;
  }
  static void advertised_limit(credit_flow_control& fc, int vl, uint16_t fccl) { fc.vl_[vl].fccl = fccl; }
  static void starved_since(credit_flow_control& fc, int vl, uint64_t since_ps) {
    fc.vl_[vl].blocked = true;
    fc.vl_[vl].blocked_since_ps = since_ps;
  }
  static tx_scheduler::control_counters& sent(nic& n, int cls) { return n.tx_.class_[cls].sent; }
  // The payload bytes the NIC's first flow handed to its MAC, from which its data frames are counted.
  static uint64_t& handed(nic& n) { return n.tx_.senders_.at(0).sent; }
  static uint64_t& arrived(nic& n) { return n.rx_.rx_frames_; }
  static std::size_t stored_counters(const invariant_checker& c) { return c.last_.size(); }
};
}  // namespace sluice

using namespace sluice;
using hooks = invariant_test_hooks;

namespace {
// Runs `sim` and returns the invariant message that stopped it ("" if none did).
std::string violation_of(simulation& sim) {
  try {
    sim.run();
  } catch (const sc_core::sc_report& e) {
    EXPECT_STREQ(e.get_msg_type(), "sluice/invariant");
    return e.get_msg();
  }
  return "";
}

std::string check_now(simulation& sim) {
  invariant_checker checker(sim.fabric_model());
  try {
    checker.check(now_ps());
  } catch (const sc_core::sc_report& e) {
    return e.get_msg();
  }
  return "";
}

#define EXPECT_HAS(text, fragment) EXPECT_NE((text).find(fragment), std::string::npos) << (text)

// The PFC ring of pfc-deadlock.yaml for 300 us (deadlocked from about 100 us on).
std::unique_ptr<simulation> deadlock_ring(std::vector<std::pair<std::string, std::string>> sets = {}) {
  run_options o;
  o.sets = std::move(sets);
  o.sets.insert(o.sets.begin(), {"invariants.interval", "0s"});  // at every sample (10 us) unless set
  o.until = sc_core::sc_time(300, sc_core::SC_US);
  return std::make_unique<simulation>(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), o);
}
}  // namespace

TEST(Invariants, HoldInEveryShippedKindOfRun) {
  // A CEE run with pauses and one with drops of a lossy class: nothing fires.
  auto sim = deadlock_ring();
  EXPECT_EQ(violation_of(*sim), "");
  EXPECT_EQ(check_now(*sim), "");
}

TEST(Invariants, AFrameLostFromAQueueStopsTheRunAtTheNextSample) {
  auto sim = deadlock_ring();
  switch_port& p = *sim->fabric_model().switches[0]->ports[0];
  ++hooks::stats(p.egress, 5).frames_in;  // one frame in (on an idle class) that never went out, queued or dropped
  const std::string msg = violation_of(*sim);
  EXPECT_HAS(msg, "s0.port0 prio 5 at 10us: frame conservation: 1 in != 0 out + 0 queued + 0 dropped");
}

TEST(Invariants, BytesMustBeConservedToo) {
  auto sim = deadlock_ring();
  hooks::stats(sim->fabric_model().switches[1]->ports[2]->egress, 5).bytes_in += 64;
  EXPECT_HAS(violation_of(*sim), "s1.port2 prio 5 at 10us: byte conservation: 64 in != 0 out");
}

TEST(Invariants, ALosslessDropNeedsACountedCause) {
  auto sim = deadlock_ring();
  sim->fabric_model().switches[2]->ports[1]->count_drop(3);  // neither an overflow nor unroutable
  EXPECT_HAS(
      violation_of(*sim),
      "s2.port1 prio 3 at 10us: lossless drop without a counted cause: 1 drops, 0 headroom overflows + 0 unroutable");
}

TEST(Invariants, ALossyDropNeedsNoCause) {
  auto sim = deadlock_ring({{"s*.prio3.lossless", "false"}});
  sim->fabric_model().switches[2]->ports[1]->count_drop(3);
  EXPECT_EQ(violation_of(*sim), "");
}

TEST(Invariants, ACounterGoingBackwardsIsCaught) {
  auto sim = deadlock_ring();
  sim->run();
  pfc& fc = sim->fabric_model().switches[0]->ports[1]->flow_control;
  ASSERT_GT(fc.pause_received(3), 0u);
  EXPECT_EQ(check_now(*sim), "");
  invariant_checker checker(sim->fabric_model());
  checker.check(now_ps());
  hooks::pause_counter(fc, 3, fc.pause_received(3) - 1);
  try {
    checker.check(now_ps());
    ADD_FAILURE() << "no violation";
  } catch (const sc_core::sc_report& e) {
    EXPECT_HAS(std::string(e.get_msg()), "s0.port1 prio 3 at 300us: counter pause_received went backwards");
  }
}

namespace {
// A counter of a model the checker was never told about: every registered counter is checked.
uint64_t test_counter = 0;
const stat_desc test_counter_desc[] = {
    {"test_events", "events", "a counter registered by this test",
     [](const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }, stat_kind::counter}};
const stat_desc test_gauge_desc[] = {
    {"test_level", "frames", "a gauge registered by this test",
     [](const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }}};
}  // namespace

TEST(Invariants, AnyRegisteredCounterGoingBackwardsIsCaught) {
  auto sim = deadlock_ring();
  switch_model& sw = *sim->fabric_model().switches[2];
  static uint64_t level = 7;
  test_counter = 5;
  stat_registry::instance().add(&sw, "test", test_counter_desc, 1, &test_counter);
  stat_registry::instance().add(&sw, "test", test_gauge_desc, 1, &level);
  sim->run();
  invariant_checker checker(sim->fabric_model());
  checker.check(now_ps());
  level = 3;  // a gauge may fall
  checker.check(now_ps());
  test_counter = 4;
  try {
    checker.check(now_ps());
    ADD_FAILURE() << "no violation";
  } catch (const sc_core::sc_report& e) {
    EXPECT_HAS(std::string(e.get_msg()), "s2.test at 300us: counter test_events went backwards (5 -> 4)");
  }
}

// The end of the run's check compares with the last periodic check's values without storing its
// own (nothing checks after it): a counter that went backwards since is still caught, and a
// first check at the end compares with 0.
TEST(Invariants, TheLastCheckComparesWithoutStoring) {
  auto sim = deadlock_ring();
  switch_model& sw = *sim->fabric_model().switches[2];
  test_counter = 5;
  stat_registry::instance().add(&sw, "test", test_counter_desc, 1, &test_counter);
  sim->run();
  {
    invariant_checker first_at_end(sim->fabric_model());
    EXPECT_NO_THROW(first_at_end.check(now_ps(), true));
    EXPECT_EQ(hooks::stored_counters(first_at_end), 0u);
  }
  invariant_checker checker(sim->fabric_model());
  checker.check(now_ps());
  const std::size_t stored = hooks::stored_counters(checker);
  EXPECT_GT(stored, 0u);
  test_counter = 4;
  try {
    checker.check(now_ps(), true);
    ADD_FAILURE() << "no violation";
  } catch (const sc_core::sc_report& e) {
    EXPECT_HAS(std::string(e.get_msg()), "s2.test at 300us: counter test_events went backwards (5 -> 4)");
  }
  EXPECT_EQ(hooks::stored_counters(checker), stored);
}

TEST(Invariants, ANicControlFrameLostIsCaught) {
  auto sim = deadlock_ring();  // no congestion control: no NIC makes control frames
  nic& h = *sim->fabric_model().nics[0];
  ++hooks::sent(h, 3).control_in;  // made, never sent nor queued
  hooks::sent(h, 3).control_in_bytes += 64;
  EXPECT_HAS(violation_of(*sim), "h0.port0 prio 3 at 10us: control frame conservation: 1 made != 0 sent + 0 queued");
}

TEST(Invariants, ANicFrameOnTheWireUncountedIsCaught) {
  auto sim = deadlock_ring();
  nic& h = *sim->fabric_model().nics[0];
  ++hooks::handed(h);  // a data frame (its first byte) counted as sent that the MAC never sent
  EXPECT_HAS(violation_of(*sim), "h0.port0 at 10us: frames on the wire: ");
}

TEST(Invariants, ANicDataFrameLostOnReceiveIsCaught) {
  auto sim = deadlock_ring();
  nic& h = *sim->fabric_model().nics[1];
  ++hooks::arrived(h);  // arrived, never delivered, held nor misdelivered
  EXPECT_HAS(violation_of(*sim), "h1.port0 at 10us: data frame conservation: ");
}

TEST(Invariants, APausedGroupWithoutItsRefreshIsCaught) {
  auto sim = deadlock_ring();
  sim->run();  // the ring's groups are paused for good
  for (auto& sw : sim->fabric_model().switches)
    for (auto& p : sw->ports) hooks::refresh_disarmed(p->flow_control);
  EXPECT_HAS(check_now(*sim),
             "prio 3 at 300us: the buffer holds the priority group paused but no pause refresh is armed");
}

TEST(Invariants, APauseTimerEndingBeforeItBeganIsCaught) {
  auto sim = deadlock_ring();
  sim->run();
  hooks::pause_interval(sim->fabric_model().switches[1]->ports[0]->flow_control, 2, 200'000'000, 100'000'000);
  EXPECT_HAS(check_now(*sim), "s1.port0.pfc prio 2 at 300us: pause timer ends before it began (200us -> 100us)");
}

namespace {
std::unique_ptr<simulation> ib_pair() {
  return test::make_sim(R"(
platform: {kind: incast, senders: 2, link_layer: ib}
traffic: [{kind: constant, src: "h*", dst: r0, rate: 40Gbps, priority: 0}]
run: {until: 50us}
)");
}
}  // namespace

TEST(Invariants, CreditsAboveTheReceiversBufferAreCaught) {
  auto sim = ib_pair();
  sim->run();
  credit_flow_control& fc = *sim->fabric_model().switches[0]->ports[0]->credits;
  hooks::advertised_limit(fc, 0, static_cast<uint16_t>((fc.fctbs(0) + 2000) & 0xFFF));
  EXPECT_HAS(check_now(*sim), "prio 0 at 50us: credit of 2000 blocks above the receiver's buffer of");
}

TEST(Invariants, NegativeCreditsStopTheRunWhereTheFrameWasSent) {
  auto sim = ib_pair();
  sim->run();
  credit_flow_control& fc = *sim->fabric_model().switches[0]->ports[0]->credits;
  try {
    fc.on_transmit(0, (fc.available_blocks(0) + 1) * 64);  // one block beyond the credit left
    ADD_FAILURE() << "no violation";
  } catch (const sc_core::sc_report& e) {
    EXPECT_HAS(std::string(e.get_msg()), "prio 0 at 50us: credits negative: a frame of");
    EXPECT_HAS(std::string(e.get_msg()), "blocks was sent beyond the limit");
  }
}

TEST(Invariants, ANegativeStarvationPeriodIsCaught) {
  auto sim = ib_pair();
  sim->run();
  credit_flow_control& fc = *sim->fabric_model().switches[0]->ports[0]->credits;
  hooks::starved_since(fc, 1, now_ps() + 1'000'000);
  EXPECT_HAS(check_now(*sim), "prio 1 at 50us: credit starvation begins in the future (51us)");
  try {
    fc.on_transmit(1, 64);  // ends the starvation now: a period of -1 us
    ADD_FAILURE() << "no violation";
  } catch (const sc_core::sc_report& e) {
    EXPECT_HAS(std::string(e.get_msg()), "prio 1 at 50us: credit starvation ends before it began (since 51us)");
  }
}

TEST(Invariants, ByDefaultTheyAreCheckedEveryMillisecondAndAtTheEnd) {
  run_options o;
  o.until = sc_core::sc_time(1500, sc_core::SC_US);
  simulation sim(load_scenario_file(test::scenario_path("pfc-deadlock.yaml")), o);
  ++hooks::stats(sim.fabric_model().switches[0]->ports[0]->egress, 5).frames_in;
  EXPECT_HAS(violation_of(sim), "s0.port0 prio 5 at 1ms: frame conservation");
}

TEST(Invariants, TheEndOfTheRunIsChecked) {
  auto sim = deadlock_ring({{"invariants.interval", "1s"}});  // no check during the run
  sim->fabric_model().switches[0]->ports[0]->count_drop(3);
  EXPECT_HAS(violation_of(*sim), "s0.port0 prio 3 at 300us: lossless drop without a counted cause");
}
