// The NIC's split blocks: the transmit scheduler's heap (flows ready together served round
// robin, a paused class's flows parked and resumed, a rate change taking effect at once), the
// receive dispatcher's notification point and the per-flow reaction point.
// 40 Gb/s, 1 us links: 1500 B take 300 ns, 1000 B 200 ns.
#include <gtest/gtest.h>

#include <random>

#include "models/core/event_queue.h"
#include "models/nic/rx_dispatcher.h"
#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
std::vector<uint64_t> times(const std::vector<test::seen_frame>& v) {
  std::vector<uint64_t> t;
  for (const auto& f : v) t.push_back(f.at_ps);
  return t;
}
}  // namespace

TEST(TxScheduler, FlowsReadyTogetherAreServedRoundRobin) {
  auto sim =
      test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 3000B, priority: 3}, "
                                    "{kind: finite, src: a, dst: b, size: 3000B, priority: 3}",
                                    "params: {\"a.mtu\": 1500B}\nrun: {until: 10us}\n"));
  test::recording_np np;
  sim->fabric_model().nics[1]->set_notification_point(&np);
  sim->run();
  ASSERT_EQ(np.data.size(), 4u);
  EXPECT_EQ(np.data[0].flow_id, 0u);
  EXPECT_EQ(np.data[1].flow_id, 1u);
  EXPECT_EQ(np.data[2].flow_id, 0u);
  EXPECT_EQ(np.data[3].flow_id, 1u);
  // Back to back: last bits at 300 ns + 1 us, then every 300 ns.
  EXPECT_EQ(times(np.data), (std::vector<uint64_t>{ns_ps(1300), ns_ps(1600), ns_ps(1900), ns_ps(2200)}));
}

TEST(TxScheduler, APausedClassIsParkedAndResumes) {
  // Flow 0 on priority 3 and flow 1 on priority 5 alternate 1500-byte frames (flow 0 at even
  // multiples of 300 ns). sw0 pauses priority 3 at 10 us (lands at a at 11.0128 us) and resumes it at
  // 20 us (lands at 21.0128 us).
  auto sim = test::make_sim(
      "platform:\n  kind: custom\n  switches: [sw0]\n  nics: [a, b]\n"
      "  links: [{a: a, b: sw0, rate: 40Gbps, delay: 1us}, {a: sw0, b: b, rate: 40Gbps, delay: 1us}]\n"
      "traffic: [{kind: finite, src: a, dst: b, size: 10MB, priority: 3},"
      " {kind: finite, src: a, dst: b, size: 10MB, priority: 5}]\n"
      "params: {\"a.mtu\": 1500B}\nrun: {until: 25us}\n");
  fabric& f = sim->fabric_model();
  test::recording_rp rp0, rp1;
  f.nics[0]->set_reaction_point(0, &rp0);
  f.nics[0]->set_reaction_point(1, &rp1);
  pfc& gen = f.switches[0]->ports[test::port_toward(f, "sw0", "a", 2)]->flow_control;
  test::step_driver d("driver");
  d.at(sc_time(10, SC_US), [&] { gen.pause_upstream(3); });
  d.at(sc_time(20, SC_US), [&] { gen.resume_upstream(3); });
  sim->run();
  const auto t0 = times(rp0.sent), t1 = times(rp1.sent);
  // Flow 0's last frame before the pause started at 10.8 us; from 11.1 us flow 1 sends alone,
  // every 300 ns (flow 0, parked, must not hold it up); the frame it started at 21.0 us ends at
  // 21.3 us, when flow 0 returns.
  ASSERT_GE(t0.size(), 21u);
  EXPECT_EQ(t0[18], ns_ps(10800));
  EXPECT_EQ(t0[19], ns_ps(21300));
  EXPECT_EQ(t0[20], ns_ps(21900));
  std::size_t alone = 0;
  for (uint64_t t : t1)
    if (t >= ns_ps(11100) && t <= ns_ps(21000)) {
      EXPECT_EQ(t, ns_ps(11100) + alone * ns_ps(300));
      ++alone;
    }
  EXPECT_EQ(alone, 34u);
}

namespace {
// A 20 KB flow in 1000-byte frames paced at 1 Gb/s: a frame every 8 us, the second at 8 us
// (runs to 11.5 us).
struct paced_bench {
  std::unique_ptr<simulation> sim = test::make_sim(
      test::two_nics("{kind: finite, src: a, dst: b, size: 20KB, priority: 3}", "run: {until: 11500ns}\n"));
  test::recording_rp rp;
  test::step_driver d{"driver"};
  paced_bench() {
    nic& a = *sim->fabric_model().nics[0];
    a.limiter(0).set_rate(data_rate{1e9});
    a.set_reaction_point(0, &rp);
  }
  void switch_at(sc_time t) {
    d.at(t, [this] { sim->fabric_model().nics[0]->limiter(0).set_rate(data_rate{10e9}); });
  }
};
}  // namespace

TEST(TxScheduler, ARateChangeMidGapTakesTheNewGapFromTheLastFrame) {
  paced_bench b;
  b.switch_at(sc_time(8500, SC_NS));  // at 10 Gb/s the next frame is due 800 ns after 8 us
  b.sim->run();
  EXPECT_EQ(times(b.rp.sent),
            (std::vector<uint64_t>{0, ns_ps(8000), ns_ps(8800), ns_ps(9600), ns_ps(10400), ns_ps(11200)}));
}

TEST(TxScheduler, ARateChangePastTheNewGapSendsAtOnce) {
  paced_bench b;
  b.switch_at(sc_time(9500, SC_NS));  // 8.8 us has passed: the next frame goes now
  b.sim->run();
  EXPECT_EQ(times(b.rp.sent), (std::vector<uint64_t>{0, ns_ps(8000), ns_ps(9500), ns_ps(10300), ns_ps(11100)}));
}

TEST(RxDispatcher, NotificationPointSeesDataFramesOnlyAndFeedbackGoesToTheFlowsReactionPoint) {
  auto sim = test::make_sim(
      test::two_nics("{kind: finite, src: a, dst: b, size: 2000B, priority: 3}", "run: {until: 10us}\n"));
  fabric& f = sim->fabric_model();
  nic &a = *f.nics[0], &b = *f.nics[1];
  test::recording_np np;
  test::recording_rp rp;
  b.set_notification_point(&np);
  a.set_reaction_point(0, &rp);
  // At 5 us b's NP answers with a CNP about flow 0 through b's control path (64 B on an idle
  // wire: it lands at a at 5 + 0.0128 + 1 us).
  test::step_driver d("driver");
  d.at(sc_time(5, SC_US), [&] { b.send_control(test::switch_frame(frame_kind::cnp, b.node_id(), a.node_id(), 0, 3)); });
  sim->run();
  // Two 1000-byte frames (default mtu), last bits at 1.2 and 1.4 us.
  ASSERT_EQ(np.data.size(), 2u);
  EXPECT_EQ(times(np.data), (std::vector<uint64_t>{ns_ps(1200), ns_ps(1400)}));
  ASSERT_EQ(rp.feedback.size(), 1u);
  EXPECT_EQ(rp.feedback[0].kind, frame_kind::cnp);
  EXPECT_EQ(rp.feedback[0].at_ps, ns_ps(6012.8));
  EXPECT_EQ(times(rp.sent), (std::vector<uint64_t>{0, ns_ps(200)}));
  EXPECT_EQ(a.receiver().received(frame_kind::cnp), 1u);
  EXPECT_EQ(a.receiver().frames_received(), 0u);  // feedback is not data
}

TEST(RxDispatcher, AFlowIdPastTheTableIsMisdeliveredAndOneWithinIsDelivered) {
  // The flow id is tested against the table's length in bytes (no division by the flow's size):
  // the ids at and past its end, up to the largest, must count as misdelivered as before.
  flow_table flows(3);
  for (uint32_t i = 0; i < flows.size(); ++i) flows[i].id = i;
  rx_dispatcher rx(7, flows);
  auto deliver = [&rx](uint32_t flow_id, uint32_t dst) {
    tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
    packet_header& h = header(*p);
    h.kind = frame_kind::data;
    h.flow_id = flow_id;
    h.dst = dst;
    h.payload = 100;
    rx.receive_frame(p, 0);
  };
  for (uint32_t id : {0u, 2u, 3u, 4u, 1000u, 13421773u, 0xFFFFFFFFu}) deliver(id, 7);
  deliver(1, 8);  // for another NIC
  EXPECT_EQ(rx.frames_received(), 8u);
  EXPECT_EQ(rx.data_misdelivered(), 6u);
  EXPECT_EQ(flows[0].stats.rx_bytes, 100u);
  EXPECT_EQ(flows[1].stats.rx_bytes, 0u);
  EXPECT_EQ(flows[2].stats.rx_bytes, 100u);
  EXPECT_EQ(rx.out_of_order_delivered(), 0u);
}

TEST(RxDispatcher, TheShortPathCountsWhatTheGeneralPathCounts) {
  // Two dispatchers, each with its own copy of a flow table, get the same random frames inside a
  // drain (the models' clock set as the event queue sets it): one plain (in-order data frames
  // take the short path), the other with a notification point (every frame through the general
  // path). Data frames of finite flows (completing on the way) and constant ones, of flows past
  // the table and for other NICs, and feedback: every flow's counts, times and completion, and
  // every counter, must be the same.
  std::mt19937_64 rng(23);
  flow_table plain_flows(40);
  for (uint32_t i = 0; i < plain_flows.size(); ++i) {
    flow& f = plain_flows[i];
    f.id = i;
    f.spec.kind = i % 3 == 0 ? flow_kind::constant : flow_kind::finite;
    f.spec.size = 1000 + rng() % 200000;
    f.spec.src = i % 2 ? 7 : 3;
  }
  flow_table general_flows = plain_flows;
  rx_dispatcher plain(7, plain_flows), general(7, general_flows);
  test::recording_np np;
  general.set_notification_point(&np);
  std::vector<uint32_t> plain_completed, general_completed;
  plain.on_flow_complete([&plain_completed](uint32_t id) { plain_completed.push_back(id); });
  general.on_flow_complete([&general_completed](uint32_t id) { general_completed.push_back(id); });
  const uint64_t was_now = clock_detail::now;  // a time other than idle_now: as if draining
  for (uint64_t n = 0; n < 20000; ++n) {
    clock_detail::now = 1000 + n * 100 + rng() % 50;
    const uint32_t flow_id = static_cast<uint32_t>(rng() % 44);  // now and then past the table
    const uint32_t dst = rng() % 50 == 0 ? 8 : 7;
    const frame_kind kind = rng() % 20 == 0 ? frame_kind::cnp : frame_kind::data;
    const uint32_t payload = static_cast<uint32_t>(rng() % 1500);
    for (rx_dispatcher* rx : {&plain, &general}) {
      tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
      packet_header& h = header(*p);
      h.kind = kind;
      h.flow_id = flow_id;
      h.dst = dst;
      h.payload = payload;
      rx->receive_frame(p, 0);
    }
  }
  clock_detail::now = was_now;
  EXPECT_EQ(plain.frames_received(), general.frames_received());
  EXPECT_EQ(plain.misdelivered(), general.misdelivered());
  EXPECT_EQ(plain.data_misdelivered(), general.data_misdelivered());
  EXPECT_GT(plain.data_misdelivered(), 100u);
  EXPECT_EQ(plain.unmatched_feedback(), general.unmatched_feedback());
  EXPECT_EQ(plain.received(frame_kind::data), general.received(frame_kind::data));
  EXPECT_EQ(plain.received(frame_kind::cnp), general.received(frame_kind::cnp));
  EXPECT_EQ(np.data.size(), general.frames_received() - general.data_misdelivered());
  EXPECT_EQ(plain_completed, general_completed);
  EXPECT_GT(plain_completed.size(), 10u);
  for (uint32_t i = 0; i < plain_flows.size(); ++i) {
    const flow_stats &a = plain_flows[i].stats, &b = general_flows[i].stats;
    EXPECT_EQ(a.rx_bytes, b.rx_bytes) << i;
    EXPECT_EQ(a.rx_frames, b.rx_frames) << i;
    EXPECT_EQ(a.first_rx_ps, b.first_rx_ps) << i;
    EXPECT_EQ(a.last_rx_ps, b.last_rx_ps) << i;
    EXPECT_EQ(a.completed_ps, b.completed_ps) << i;
    EXPECT_EQ(a.feedback_rx, b.feedback_rx) << i;
  }
}
