// The PFC component on a two-MAC bench: frames counted as they go on the wire (XOFF, refresh
// and XON apart; a merged request is one frame), the pause timer (quanta x 512 bit times), the
// response delay, the gate and the MAC's wake-up when a pause ends.
#include "models/link/pfc.h"

#include <gtest/gtest.h>

#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
// The ingress buffer behind a's receiver, as the refresh timer asks it.
struct fake_buffer : ingress_state_if {
  std::array<bool, pfc_priorities> paused{};
  pause_check recheck_pause(int, int cls) override {
    return paused[cls] ? pause_check::still_paused : pause_check::not_paused;
  }
  uint64_t xon_gap_bytes(int, int) const override { return 3000; }
};

// a generates PFC (it has a buffer behind it); b honours it: b_src sends on b's gate.
struct pfc_bench {
  test::mac_pair m;
  fake_buffer buffer;
  pfc gen, rcv;
  pfc_bench() : gen("a_pfc", m.a, 8, &buffer), rcv("b_pfc", m.b, 8, nullptr) {
    m.a.attach_flow_control(&gen);
    m.b.attach_flow_control(&rcv);
    m.b_src.gate = &rcv;
  }
};

// 40 Gb/s: 64-byte PFC frame 12.8 ns, 1000-byte frame 200 ns, 1 us of cable.
constexpr uint64_t pfc_flight_ps = 1012800;
}  // namespace

TEST(PfcComponent, RequestsMadeWhileTheWireIsBusyMergeIntoOneFrame) {
  pfc_bench b;
  b.m.a_src.add(0, 1500, 1);  // a's wire is busy 0..300 ns
  test::step_driver d("driver");
  d.at(sc_time(100, SC_NS), [&] {
    b.gen.pause_upstream(3);
    b.gen.pause_upstream(5);
  });
  start(sc_time(2, SC_US));
  EXPECT_TRUE(b.m.a.asks_pfc_directly());  // the inline test for a waiting frame (mac_port.h)
  EXPECT_EQ(b.gen.frames_sent(), 1u);      // one PFC frame with two class-enable bits
  EXPECT_EQ(b.gen.xoff_sent(3), 1u);
  EXPECT_EQ(b.gen.xoff_sent(5), 1u);
  EXPECT_EQ(b.gen.refresh_sent(3), 0u);
  EXPECT_EQ(b.m.a.frames_sent(), 2u);  // the data frame, then the PFC frame
  EXPECT_EQ(b.m.wire.ab.bytes(), 1500u + pfc_frame_bytes);
  EXPECT_EQ(b.rcv.frames_received(), 1u);
  EXPECT_EQ(b.rcv.pause_received(3), 1u);
  EXPECT_EQ(b.rcv.pause_received(5), 1u);
  // The PFC frame starts at 300 ns and its last bit lands at 300 + 12.8 + 1000 ns.
  EXPECT_EQ(to_ps(b.rcv.paused_time(3, sc_time(2, SC_US))), ns_ps(2000 - 1312.8));
  EXPECT_EQ(to_ps(b.rcv.paused_time(5, sc_time(2, SC_US))), ns_ps(2000 - 1312.8));
}

// The MAC keeps our PFC's "a frame may wait" in its own line (mac_port.h): a request sets it, and
// a decision that finds it asks the PFC, which may have nothing by then (here a test took the
// XOFF itself while the wire was busy). The XON requested later must still go on the wire.
TEST(PfcComponent, AFrameTakenBeforeTheMacAsksIsNotSentAndALaterRequestIs) {
  pfc_bench b;
  b.m.a_src.add(0, 1500, 1);  // a's wire is busy 0..300 ns
  test::step_driver d("driver");
  d.at(sc_time(100, SC_NS), [&] { b.gen.pause_upstream(3); });
  d.at(sc_time(150, SC_NS), [&] {
    tlm::tlm_generic_payload* taken = b.gen.take_control_frame(now_ps());
    ASSERT_NE(taken, nullptr);
    taken->release();
    EXPECT_EQ(b.gen.take_control_frame(now_ps()), nullptr);
  });
  d.at(sc_time(500, SC_NS), [&] { b.gen.resume_upstream(3); });
  start(sc_time(3, SC_US));
  EXPECT_TRUE(b.m.a.asks_pfc_directly());
  EXPECT_EQ(b.m.a.frames_sent(), 2u);  // the data frame at 0, the XON at 500 ns
  EXPECT_EQ(b.gen.xon_sent(3), 1u);
  EXPECT_EQ(b.rcv.frames_received(), 1u);
  EXPECT_EQ(b.rcv.pause_received(3), 0u);
  EXPECT_EQ(b.rcv.resume_received(3), 1u);
  EXPECT_EQ(b.m.wire.ab.bytes(), 1500u + pfc_frame_bytes);
}

TEST(PfcComponent, RefreshAndXonAreCountedApartFromXoff) {
  pfc_bench b;
  b.gen.quanta->set(1000);  // 1000 x 512 bit / 40 Gb/s = 12.8 us; refresh every 6.4 us
  test::step_driver d("driver");
  d.at(sc_time(10, SC_US), [&] {
    b.buffer.paused[3] = true;
    b.gen.pause_upstream(3);
  });
  // Refreshes at 16.4 and 22.8 us; XON at 25 us; at 29.2 us the group is no longer paused.
  d.at(sc_time(25, SC_US), [&] {
    b.buffer.paused[3] = false;
    b.gen.resume_upstream(3);
  });
  start(sc_time(40, SC_US));
  EXPECT_EQ(b.gen.xoff_sent(3), 1u);
  EXPECT_EQ(b.gen.refresh_sent(3), 2u);
  EXPECT_EQ(b.gen.xon_sent(3), 1u);
  EXPECT_EQ(b.gen.frames_sent(), 4u);
  EXPECT_EQ(b.m.wire.ab.frames(), 4u);
  EXPECT_EQ(b.rcv.pause_received(3), 3u);  // XOFF and both refreshes carry quanta
  EXPECT_EQ(b.rcv.resume_received(3), 1u);
  // Paused without a gap from the XOFF's arrival (11.0128 us) to the XON's (26.0128 us).
  EXPECT_EQ(b.rcv.paused_time(3, sc_time(40, SC_US)), sc_time(15, SC_US));
}

namespace {
// b sends 1000-byte frames back to back on priority 3 (one every 200 ns); a sends XOFF for
// 1000 quanta (12.8 us) at 10 us, which lands at 11.0128 us.
struct expiry_bench : pfc_bench {
  test::step_driver d{"driver"};
  expiry_bench() {
    m.b_src.add(3, 1000, 1000);
    gen.quanta->set(1000);
    d.at(sc_time(10, SC_US), [this] { gen.pause_upstream(3); });  // buffer not paused: no refresh
  }
};
}  // namespace

TEST(PfcComponent, PauseExpiresAfterQuantaTimes512BitTimesAndWakesTheMac) {
  expiry_bench b;
  start(sc_time(30, SC_US));
  const auto& s = b.m.b_src.starts;
  ASSERT_GT(s.size(), 57u);
  // The frame started at 11.0 us finishes at 11.2 us, inside the pause; the next one starts
  // the moment the pause ends: 11.0128 + 12.8 us.
  EXPECT_EQ(s[55], ns_ps(11000));
  EXPECT_EQ(s[56], ns_ps(23812.8));
  EXPECT_EQ(s[57], ns_ps(24012.8));
  EXPECT_EQ(b.rcv.paused_time(3, sc_time(30, SC_US)), sc_time(12.8, SC_US));
}

TEST(PfcComponent, TheResponseDelayPostponesThePause) {
  expiry_bench b;
  b.rcv.response.set(sc_time(300, SC_NS));  // effective at 11.3128 us: the 11.2 us frame still goes
  start(sc_time(30, SC_US));
  const auto& s = b.m.b_src.starts;
  ASSERT_GT(s.size(), 57u);
  EXPECT_EQ(s[56], ns_ps(11200));
  EXPECT_EQ(s[57], ns_ps(24112.8));
}

TEST(PfcComponent, TheGateReportsPausedClassesAndWhenTheyOpen) {
  expiry_bench b;
  uint64_t until = 0;
  bool closed = false, other_open = false;
  b.d.at(sc_time(12, SC_US), [&] {
    closed = !b.rcv.may_send(3, 1000, now_ps());
    other_open = b.rcv.may_send(4, 1000, now_ps());
    until = b.rcv.blocked_until_ps(3, now_ps());
  });
  start(sc_time(13, SC_US));
  EXPECT_TRUE(closed);
  EXPECT_TRUE(other_open);
  EXPECT_EQ(until, ns_ps(23812.8));
}

TEST(PfcComponent, ItsReaderKeepsWhenAllPausesEndAndASecondReaderAlwaysAsks) {
  // A frame source's copy of when all of our PFC's pauses end (pfc::share_pauses_end, in the
  // NIC's transmit scheduler): never before a pause's end, so that the test of a class that
  // skips the PFC once now is past it is exact; left later by a pause an XON cut short. A second
  // reader on one PFC is not kept: it gets never_ps, and always asks the class.
  expiry_bench b;
  uint64_t copy = 1, second = 0;
  b.rcv.share_pauses_end(copy);
  b.rcv.share_pauses_end(second);
  EXPECT_EQ(copy, 0u);
  EXPECT_EQ(second, never_ps);
  b.d.at(sc_time(15, SC_US), [&] { b.gen.resume_upstream(3); });  // takes effect at 16.0128 us
  uint64_t during = 0, after = 0;
  bool paused_during = false, paused_after = true, second_asks = false;
  b.d.at(sc_time(12, SC_US), [&] {
    during = copy;
    paused_during = b.rcv.paused(3, now_ps(), copy);
    second_asks = b.rcv.paused(3, now_ps(), second);
  });
  b.d.at(sc_time(17, SC_US), [&] {
    after = copy;
    paused_after = b.rcv.paused(3, now_ps(), copy);
  });
  start(sc_time(20, SC_US));
  EXPECT_EQ(during, ns_ps(23812.8));  // the pause's end, 1000 quanta after its start
  EXPECT_TRUE(paused_during);
  EXPECT_TRUE(second_asks);
  EXPECT_EQ(after, ns_ps(23812.8));  // later than the pause, which XON ended
  EXPECT_FALSE(paused_after);
  const auto& s = b.m.b_src.starts;
  ASSERT_GT(s.size(), 56u);
  EXPECT_EQ(s[56], 15 * 1000000ull + pfc_flight_ps);  // sent the moment XON took effect
  b.rcv.unshare_pauses_end(second);
  b.rcv.unshare_pauses_end(copy);
}

TEST(PfcComponent, XonWakesTheMacAtItsArrival) {
  pfc_bench b;  // default quanta: 838.848 us of pause
  b.m.b_src.add(3, 1000, 1000);
  test::step_driver d("driver");
  d.at(sc_time(10, SC_US), [&] { b.gen.pause_upstream(3); });
  d.at(sc_time(15, SC_US), [&] { b.gen.resume_upstream(3); });
  start(sc_time(20, SC_US));
  const auto& s = b.m.b_src.starts;
  ASSERT_GT(s.size(), 56u);
  EXPECT_EQ(s[55], ns_ps(11000));
  EXPECT_EQ(s[56], 15 * 1000000ull + pfc_flight_ps);  // 16.0128 us
  EXPECT_EQ(b.gen.xoff_sent(3), 1u);
  EXPECT_EQ(b.gen.xon_sent(3), 1u);
}

TEST(PfcComponent, ARefreshMergedIntoAWaitingXoffLeavesItAnXoff) {
  pfc_bench b;
  b.gen.quanta->set(1);       // 12.8 ns of pause: the refresh timer runs every 12.8 ns (one PFC frame)
  b.m.a_src.add(0, 1500, 1);  // a's wire is busy 0..300 ns
  test::step_driver d("driver");
  d.at(sc_time(100, SC_NS), [&] {
    b.buffer.paused[3] = true;
    b.gen.pause_upstream(3);  // waits for the wire; refreshes at 112.8, 125.6, ... merge into it
  });
  start(sc_time(310, SC_NS));  // the merged frame went at 300 ns
  EXPECT_EQ(b.gen.frames_sent(), 1u);
  EXPECT_EQ(b.gen.xoff_sent(3), 1u);
  EXPECT_EQ(b.gen.refresh_sent(3), 0u);
}

// What NP-ECN and TCD read of the gate: the end of the latest OFF period (0 before any, now while
// paused, unchanged by a pause not yet in effect) and the loop of the ON-OFF model.
TEST(PfcComponent, TheGateReportsTheEndOfTheLatestOffPeriodAndItsLoop) {
  pfc_bench b;
  b.m.b_src.add(3, 1000, 1000);
  test::step_driver d("driver");
  std::vector<uint64_t> seen;
  auto probe = [&] { seen.push_back(b.rcv.off_end_ps(3, now_ps())); };
  d.at(sc_time(5, SC_US), probe);                               // never paused: 0
  d.at(sc_time(10, SC_US), [&] { b.gen.pause_upstream(3); });   // in effect at 11.0128 us
  d.at(sc_time(12, SC_US), probe);                              // paused now: 12 us
  d.at(sc_time(15, SC_US), [&] { b.gen.resume_upstream(3); });  // XON lands at 16.0128 us
  d.at(sc_time(17, SC_US), probe);                              // 16.0128 us
  d.at(sc_time(19, SC_US), [&] { b.rcv.response.set(sc_time(300, SC_NS)); });
  d.at(sc_time(20, SC_US), [&] { b.gen.pause_upstream(3); });  // lands 21.0128, in effect 21.3128 us
  d.at(sc_time(21.2, SC_US), probe);                           // not yet in effect: still 16.0128 us
  d.at(sc_time(22, SC_US), probe);                             // paused: 22 us
  start(sc_time(23, SC_US));
  EXPECT_EQ(seen, (std::vector<uint64_t>{0, ns_ps(12000), ns_ps(16012.8), ns_ps(16012.8), ns_ps(22000)}));
  EXPECT_EQ(b.rcv.off_end_ps(4, ns_ps(22000)), 0u);  // another class: never paused
  // The loop: tau = 2 x 1 us + response 300 ns + 64 B at 40 Gb/s (12.8 ns) = 2.3128 us; the gap is
  // the port's own ingress hysteresis (a port without a buffer behind it has none).
  const flow_control_if::on_off_loop rcv = b.rcv.on_off(3), gen = b.gen.on_off(3);
  EXPECT_EQ(rcv.tau_ps, ns_ps(2312.8));
  EXPECT_EQ(rcv.gap_bytes, 0u);
  EXPECT_DOUBLE_EQ(rcv.rate_bps, 40e9);
  EXPECT_EQ(gen.tau_ps, ns_ps(2012.8));
  EXPECT_EQ(gen.gap_bytes, 3000u);
}

// A MAC whose gate is our PFC itself tests for a waiting control frame inline (mac_port.h);
// a subclass of PFC may answer differently, so it is asked through the interface. This one keeps
// its control frames: had the MAC taken the inline test for it, the XOFF would go on the wire.
namespace {
struct silent_pfc : pfc {
  using pfc::pfc;
  uint64_t asked = 0;
  tlm::tlm_generic_payload* take_control_frame(uint64_t) override {
    ++asked;
    return nullptr;
  }
};
}  // namespace

TEST(PfcComponent, TheMacAsksOurPfcInlineAndASubclassThroughTheInterface) {
  test::mac_pair m;
  fake_buffer buffer;
  silent_pfc gen("a_pfc", m.a, 8, &buffer);
  pfc rcv("b_pfc", m.b, 8, nullptr);
  m.a.attach_flow_control(&gen);
  m.b.attach_flow_control(&rcv);
  m.a_src.add(0, 1500, 2);
  m.b_src.add(0, 1500, 2);
  test::step_driver d("driver");
  d.at(sc_time(100, SC_NS), [&] { gen.pause_upstream(3); });
  start(sc_time(2, SC_US));
  EXPECT_FALSE(m.a.asks_pfc_directly());
  EXPECT_TRUE(m.b.asks_pfc_directly());
  EXPECT_EQ(gen.asked, 2u);          // a's transmit decisions, at 0 and 300 ns, asked the subclass
  EXPECT_EQ(m.a.frames_sent(), 2u);  // its two data frames, no XOFF
  EXPECT_EQ(rcv.frames_received(), 0u);
  EXPECT_EQ(m.b.frames_sent(), 2u);
}
