// The egress port's hooks: a congestion point sees every data frame enqueued and dequeued with
// the queue after the change, may mark it, and may emit frames of its own through the switch's
// injection path, outside MMU accounting; a frame emitted during a dequeue on the same port
// waits for the wire; and the buffer release point (first or last bit on the wire).
// One frame of 1500 B on 40 Gb/s, 1 us links: 300 ns a hop; it reaches sw0 at 1.3 us and
// leaves after the 500 ns pipeline, at 1.8 us.
#include "models/switch/egress_port.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "models/link/pfc.h"
#include "models/switch/egress_scheduler.h"
#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
struct bench {
  std::unique_ptr<simulation> sim;
  fabric& f;
  switch_model& sw;
  nic &a, &b;
  int to_a, to_b;
  test::counting_mmu mmu;
  test::recording_cp cp;
  bench(const std::string& size, std::vector<std::pair<std::string, std::string>> sets = {})
      : sim(test::make_sim(test::one_switch(size, "run: {until: 20us}\n"), std::move(sets))),
        f(sim->fabric_model()),
        sw(*f.switches[0]),
        a(*f.nics[0]),
        b(*f.nics[1]),
        to_a(test::port_toward(f, "sw0", "a", 2)),
        to_b(test::port_toward(f, "sw0", "b", 2)),
        mmu(sw.mmu_block) {
    EXPECT_STREQ(a.name(), "a");
    EXPECT_STREQ(b.name(), "b");
    sw.bind_mmu(mmu);
    sw.ports[to_b]->egress.set_congestion_point(3, &cp);
  }
};
}  // namespace

TEST(EgressPort, CongestionPointSeesEveryEnqueueAndDequeueWithTheQueue) {
  bench t("3000B");  // two frames: a sends at 0 and 300 ns; they reach sw0 at 1.3 and 1.6 us
  test::recording_np np;
  t.b.set_notification_point(&np);
  t.sim->run();
  ASSERT_EQ(t.cp.enqueued.size(), 2u);
  EXPECT_EQ(t.cp.enqueued[0].at_ps, ns_ps(1300));
  EXPECT_EQ(t.cp.enqueued[0].queue_bytes, 1500u);
  EXPECT_EQ(t.cp.enqueued[0].queue_frames, 1u);
  EXPECT_EQ(t.cp.enqueued[1].at_ps, ns_ps(1600));
  EXPECT_EQ(t.cp.enqueued[1].queue_bytes, 1500u);  // the first is in the pipeline until 1.8 us
  EXPECT_EQ(t.cp.enqueued[1].queue_frames, 1u);
  EXPECT_EQ(t.cp.enqueued[1].held_bytes, 3000u);
  ASSERT_EQ(t.cp.dequeued.size(), 2u);
  EXPECT_EQ(t.cp.dequeued[0].at_ps, ns_ps(1800));
  EXPECT_EQ(t.cp.dequeued[0].queue_bytes, 0u);  // the second is in the pipeline until 2.1 us
  EXPECT_EQ(t.cp.dequeued[0].held_bytes, 1500u);
  EXPECT_EQ(t.cp.dequeued[1].at_ps, ns_ps(2100));  // its pipeline ends as the wire frees
  EXPECT_EQ(t.cp.dequeued[1].queue_bytes, 0u);
  EXPECT_EQ(t.cp.dequeued[1].queue_frames, 0u);
  // The receiver's notification point sees both frames marked CE, at their last bit.
  ASSERT_EQ(np.data.size(), 2u);
  EXPECT_EQ(np.data[0].at_ps, ns_ps(3100));
  EXPECT_EQ(np.data[1].at_ps, ns_ps(3400));
  EXPECT_EQ(np.data[0].ecn, 3);
  EXPECT_EQ(np.data[1].ecn, 3);
}

// A congestion point measures the queue past the pipeline (queue_view::bytes): frames still in
// the 500 ns pipeline are held (queue_view::held_bytes) but not queued yet. Six 1500-byte frames
// reach sw0 every 300 ns from 1.3 us (ready 500 ns later) and leave toward b at 10 Gb/s, one per
// 1.2 us: the first at 1.8 us, the second at 3.0 us, when the frames that arrived at 1.9, 2.2 and
// 2.5 us have cleared the pipeline and the one that arrived at 2.8 us has not: 6000 B held, 4500 B
// of them queued.
TEST(EgressPort, TheCongestionPointsQueueLeavesOutFramesStillInThePipeline) {
  bench t("9000B", {{"sw0-b.rate", "10Gbps"}});
  t.sim->run();
  ASSERT_GE(t.cp.dequeued.size(), 2u);
  EXPECT_EQ(t.cp.enqueued[0].queue_bytes, 1500u);  // the queue it joins: itself
  EXPECT_EQ(t.cp.enqueued[0].queue_frames, 1u);
  EXPECT_EQ(t.cp.dequeued[0].at_ps, ns_ps(1800));
  EXPECT_EQ(t.cp.dequeued[0].held_bytes, 1500u);  // the second frame, ready at 2.1 us
  EXPECT_EQ(t.cp.dequeued[0].queue_bytes, 0u);
  EXPECT_EQ(t.cp.dequeued[1].at_ps, ns_ps(3000));
  EXPECT_EQ(t.cp.dequeued[1].held_bytes, 6000u);
  EXPECT_EQ(t.cp.dequeued[1].queue_bytes, 4500u);
  EXPECT_EQ(t.cp.dequeued[1].queue_frames, 3u);
  EXPECT_EQ(t.cp.dequeued.back().queue_bytes, 0u);
}

// A congestion point taken off a class and set again sees the queue as it is: the port counts
// the frames past the pipeline only while the class has a point, and counts them again from the
// queue when it has one again. The six frames above leave at 1.8, 3.0, 4.2, 5.4, 6.6 and 7.8 us;
// the point is taken off at the third, when the three left have all cleared the pipeline, and set
// again at 7.0 us: two of them leave unseen, and the last leaves an empty queue.
TEST(EgressPort, ACongestionPointSetAgainSeesTheQueueAsItIs) {
  bench t("9000B", {{"sw0-b.rate", "10Gbps"}});
  egress_port& out = t.sw.ports[t.to_b]->egress;
  t.cp.on_deq = [&](packet_header&) {
    if (t.cp.dequeued.size() == 3) out.set_congestion_point(3, nullptr);
  };
  struct set_again final : timed_client {
    egress_port& port;
    congestion_point_if& cp;
    set_again(egress_port& p, congestion_point_if& c) : port(p), cp(c) {}
    void on_timer() override { port.set_congestion_point(3, &cp); }
  } again(out, t.cp);
  event_queue::instance().schedule(&again, ns_ps(7000));
  t.sim->run();
  ASSERT_EQ(t.cp.dequeued.size(), 4u);  // not the two at 5.4 and 6.6 us
  EXPECT_EQ(t.cp.dequeued[2].at_ps, ns_ps(4200));
  EXPECT_EQ(t.cp.dequeued[2].queue_frames, 3u);  // all past the pipeline
  EXPECT_EQ(t.cp.dequeued[3].at_ps, ns_ps(7800));
  EXPECT_EQ(t.cp.dequeued[3].queue_bytes, 0u);
  EXPECT_EQ(t.cp.dequeued[3].queue_frames, 0u);
  EXPECT_EQ(t.cp.dequeued[3].held_bytes, 0u);
}

// A queue deeper than a segment of descriptors (segment_queue.h): the congestion point's count
// of the frames past the pipeline goes on from the last one counted across segment ends, and as
// the head leaves segments behind it. 60 frames arrive every 300 ns from 1.3 us and clear the
// 500 ns pipeline; the port sends one every 480 ns at 25 Gb/s: the queue holds up to ~24 frames
// and its 31st to 60th frames are in a second segment. After each departure the point sees the
// frames that arrived, have not left and are past the pipeline.
TEST(EgressPort, TheCongestionPointCountsReadyFramesAcrossTheQueuesSegments) {
  bench t("90000B", {{"sw0-b.rate", "25Gbps"}});
  t.sim->run();
  ASSERT_EQ(t.cp.enqueued.size(), 60u);
  ASSERT_GT(t.cp.dequeued.size(), segment_queue<queued_frame>::per_segment);  // the head in the second segment
  uint32_t deepest = 0;
  for (std::size_t k = 0; k < t.cp.dequeued.size(); ++k) {
    const uint64_t at = t.cp.dequeued[k].at_ps;
    uint32_t queued = 0, ready = 0;
    for (std::size_t j = k + 1; j < t.cp.enqueued.size() && t.cp.enqueued[j].at_ps <= at; ++j) {
      ++queued;
      if (t.cp.enqueued[j].at_ps + ns_ps(500) <= at) ++ready;
    }
    EXPECT_EQ(t.cp.dequeued[k].queue_frames, ready) << k;
    EXPECT_EQ(t.cp.dequeued[k].queue_bytes, 1500u * ready) << k;
    EXPECT_EQ(t.cp.dequeued[k].held_bytes, 1500u * queued) << k;
    deepest = std::max(deepest, ready);
  }
  EXPECT_GE(deepest, 20u);
}

TEST(EgressPort, AFrameTheCongestionPointEmitsReachesTheSourceOutsideTheMmu) {
  bench t("3000B");
  test::recording_rp rp;
  t.a.set_reaction_point(0, &rp);
  bool sent = false;
  t.cp.on_enq = [&](packet_header& h) {
    if (sent) return;
    sent = true;
    t.sw.inject(test::switch_frame(frame_kind::cnm, t.sw.node_id(), h.src, h.flow_id, 3));
  };
  t.sim->run();
  // Made at 1.3 us on the port toward a (idle): 64 B in 12.8 ns, then 1 us of cable.
  ASSERT_EQ(rp.feedback.size(), 1u);
  EXPECT_EQ(rp.feedback[0].at_ps, ns_ps(2312.8));
  EXPECT_EQ(rp.feedback[0].kind, frame_kind::cnm);
  EXPECT_EQ(rp.feedback[0].flow_id, 0u);
  ASSERT_EQ(rp.sent.size(), 2u);  // and the reaction point saw both data frames leave
  EXPECT_EQ(rp.sent[0].at_ps, 0u);
  EXPECT_EQ(rp.sent[1].at_ps, ns_ps(300));
  EXPECT_EQ(t.a.receiver().received(frame_kind::cnm), 1u);
  EXPECT_EQ(t.sw.ports[t.to_a]->queue(3).frames_out, 1u);
  // The MMU was charged and credited for the two data frames only.
  ASSERT_EQ(t.mmu.admits.size(), 2u);
  ASSERT_EQ(t.mmu.releases.size(), 2u);
  EXPECT_EQ(t.mmu.bytes(t.mmu.admits), 3000u);
  EXPECT_EQ(t.mmu.bytes(t.mmu.releases), 3000u);
  EXPECT_EQ(t.sw.mmu_block.usage(t.to_a, 3).total(), 0u);
  EXPECT_EQ(t.sw.mmu_block.usage(t.to_b, 3).total(), 0u);
}

TEST(EgressPort, AFrameEmittedDuringADequeueOnTheSamePortWaitsForTheWire) {
  bench t("1500B");
  t.cp.on_deq = [&](packet_header& h) {  // inside the MAC's send, toward b: the same port
    if (h.kind == frame_kind::data)
      t.sw.inject(test::switch_frame(frame_kind::cnm, t.sw.node_id(), h.dst, h.flow_id, 3));
  };
  uint64_t before = 0, at = 0;
  test::step_driver probe("probe");
  // The data frame holds the wire 1.8..2.1 us; the 64-byte frame follows at 2.1 us and lands
  // at b at 2.1 + 0.0128 + 1 us (a probe at that picosecond sees the models before their
  // wake-ups due then: the one after it sees the frame landed).
  probe.at(sc_time(3112800, sc_core::SC_PS), [&] { before = t.b.receiver().received(frame_kind::cnm); });
  probe.at(sc_time(3112801, sc_core::SC_PS), [&] { at = t.b.receiver().received(frame_kind::cnm); });
  t.sim->run();  // a busy wire would be an SC_REPORT_ERROR from the link
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(at, 1u);
  EXPECT_EQ(t.sw.ports[t.to_b]->mac.frames_sent(), 2u);
  EXPECT_EQ(t.sw.ports[t.to_b]->mac.bytes_sent(), 1564u);
  EXPECT_EQ(t.b.receiver().unmatched_feedback(), 1u);  // b has no reaction point for it
  EXPECT_EQ(t.mmu.bytes(t.mmu.releases), 1500u);
}

TEST(EgressPort, BufferIsReleasedAsTheFirstBitLeavesByDefault) {
  bench t("1500B");
  t.sim->run();
  ASSERT_EQ(t.mmu.releases.size(), 1u);
  EXPECT_EQ(t.mmu.releases[0].at_ps, ns_ps(1800));
  EXPECT_EQ(t.mmu.releases[0].port, t.to_a);  // the ingress port
  EXPECT_EQ(t.mmu.releases[0].bytes, 1500u);
}

TEST(EgressPort, BufferIsReleasedAsTheLastBitLeavesWithReleaseAtEnd) {
  bench t("1500B", {{"sw0.buffer_release", "end"}});
  t.sim->run();
  ASSERT_EQ(t.mmu.releases.size(), 1u);
  EXPECT_EQ(t.mmu.releases[0].at_ps, ns_ps(2100));  // 1.8 us + 1500 B at 40 Gb/s
  EXPECT_EQ(t.mmu.releases[0].bytes, 1500u);
}

namespace {
// Two 1500-byte frames of one flow through sw0's port to b; the congestion point changes the
// second's header by `second` as it is enqueued (before its descriptor is written) and marks both
// CE as they leave. Checks that each left with the fields it was queued with, and that a
// descriptor holds the first and refuses the second (which keeps its payload). The fields as
// they left.
std::vector<frame_fields> second_keeps_its_payload(const std::function<void(packet_header&)>& second) {
  bench t("3000B");
  std::vector<frame_fields> in, out;
  t.cp.on_enq = [&](packet_header& h) {
    if (in.size() == 1) second(h);
    in.push_back(h.fields());
  };
  t.cp.on_deq = [&](packet_header& h) { out.push_back(h.fields()); };
  t.sim->run();
  EXPECT_EQ(in.size(), 2u);
  EXPECT_EQ(out.size(), 2u);
  if (in.size() != 2 || out.size() != 2) return out;
  EXPECT_EQ(in[0].flow_id, in[1].flow_id);
  queued_frame e;
  EXPECT_TRUE(e.pack(in[0]));
  EXPECT_FALSE(e.pack(in[1]));
  for (int i = 0; i < 2; ++i) {
    in[i].ecn = 3;  // the recording congestion point marks CE as a frame leaves
    EXPECT_EQ(std::memcmp(&in[i], &out[i], sizeof(frame_fields)), 0) << i;
    EXPECT_EQ(out[i].flags & frame_flags::kept_payload, 0) << i;
  }
  return out;
}
}  // namespace

// A queued frame is a 32-byte descriptor (queued_frame): each frame leaves the queue with
// exactly the fields it came with, whether the descriptor holds them (the first frame) or the
// frame keeps its payload because one field is outside the descriptor's range (the second: an
// ECM CPID tag).
TEST(EgressPort, EveryFrameLeavesWithTheFieldsItWasQueuedWith) {
  const std::vector<frame_fields> out = second_keeps_its_payload([](packet_header& h) { h.cp_tag = 0xC0FFEE; });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].cp_tag, 0xC0FFEEu);
}

// A data frame whose source is not its flow's (as learnt from the flow's first queued frame, here
// the first of the two) keeps its payload and leaves with its own fields: no field of a
// descriptor comes from the flow unless the frame's own equals it.
TEST(EgressPort, AFrameWhoseEndsAreNotItsFlowsLeavesWithItsOwn) {
  const std::vector<frame_fields> out = second_keeps_its_payload([](packet_header& h) { h.src = 777; });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].src, 777u);
}

// A data frame whose header bytes (size less payload) are not its flow's keeps its payload and
// leaves with its own payload: the descriptor derives a held frame's payload from its flow's.
TEST(EgressPort, AFrameWhosePayloadIsNotItsFlowsLeavesWithItsOwn) {
  const std::vector<frame_fields> out = second_keeps_its_payload([](packet_header& h) { h.payload -= 7; });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].payload + 7, out[0].payload);
}

// An egress port whose gate is our PFC itself asks it inline (egress_port.h); a subclass of PFC
// may answer differently, so it is asked through the interface. Here a's gate is a subclass that
// keeps class 3 closed: had the port taken the inline test for it, a's frame would leave.
namespace {
struct closed_pfc : pfc {
  using pfc::pfc;
  bool may_send(int cls, uint32_t, uint64_t) const override { return cls != 3; }
  uint64_t blocked_until_ps(int cls, uint64_t now_ps) const override { return cls == 3 ? never_ps : now_ps; }
};
struct no_buffer : buffer_release_if {
  void release(int, int, uint32_t, uint64_t) override {}
};
// Each end's egress port as its MAC's source, with its scheduler and gate.
void attach_both(test::mac_pair& m, egress_port& a_out, egress_port& b_out, scheduler_if& a_sched,
                 scheduler_if& b_sched, pfc& a_gate, pfc& b_gate) {
  a_out.set_scheduler(&a_sched);
  b_out.set_scheduler(&b_sched);
  m.a.attach_flow_control(&a_gate);
  m.b.attach_flow_control(&b_gate);
  m.a.attach(&a_out, &m.a_sink);
  m.b.attach(&b_out, &m.b_sink);
}
tlm::tlm_generic_payload* data_frame(int cls, uint32_t bytes) {
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
  packet_header& h = header(*p);
  h.kind = frame_kind::data;
  h.priority = static_cast<uint8_t>(cls);
  h.size = bytes;
  h.ingress_port = no_ingress;
  h.ready_ps = now_ps();
  return p;
}
scheduler_config equal_weights() {
  scheduler_config c;
  c.weight.fill(1);
  return c;
}
// Both ends' egress ports, each with an equal-weight DWRR scheduler and its gate, as its MAC's source.
struct dwrr_ports {
  no_buffer buffer;
  scheduler_config config = equal_weights();
  egress_scheduler a_sched{config}, b_sched{config};
  egress_port a_out, b_out;
  dwrr_ports(test::mac_pair& m, pfc& a_gate, pfc& b_gate)
      : a_out(m.a, a_gate, buffer, 8), b_out(m.b, b_gate, buffer, 8) {
    attach_both(m, a_out, b_out, a_sched, b_sched, a_gate, b_gate);
  }
};
}  // namespace

TEST(EgressPort, AsksOurPfcGateInlineAndASubclassThroughTheInterface) {
  test::mac_pair m;
  closed_pfc a_gate("a_pfc", m.a, 8, nullptr);
  pfc b_gate("b_pfc", m.b, 8, nullptr);
  dwrr_ports ports(m, a_gate, b_gate);
  egress_port &a_out = ports.a_out, &b_out = ports.b_out;
  test::step_driver d("driver");
  d.at(sc_time(100, sc_core::SC_NS), [&] {
    a_out.enqueue(data_frame(3, 1000));
    b_out.enqueue(data_frame(3, 1000));
  });
  start(sc_time(5, SC_US));
  EXPECT_FALSE(a_out.asks_pfc_directly());
  EXPECT_TRUE(b_out.asks_pfc_directly());
  EXPECT_EQ(m.a.frames_sent(), 0u);  // class 3 closed by the subclass
  EXPECT_EQ(a_out.queue(3).frames, 1u);
  EXPECT_EQ(m.b.frames_sent(), 1u);  // our PFC has paused nothing
  ASSERT_EQ(m.a_sink.frames.size(), 1u);
  EXPECT_EQ(m.a_sink.frames[0].at_ps, test::ns_ps(100 + 200 + 1000));  // 1000 B at 40 Gb/s, 1 us of cable
}

// The fast paths (egress_port.cpp: one busy class behind our PFC chosen by the built-in
// scheduler inline, next_ready_ps without its loop) must send what the general paths send. a's
// port takes them; b's has a PFC and a scheduler of subclasses that change nothing, so it asks
// both through their interfaces and takes the loops. Both get the same random frames (mostly one
// class, sometimes several, some still in the pipeline) and the same pauses from the far end: each
// wire must carry the same frames at the same picoseconds, and each buffer get the same bytes back.
namespace {
struct same_pfc : pfc {
  using pfc::pfc;
};
struct same_scheduler : egress_scheduler {
  using egress_scheduler::egress_scheduler;
};
struct never_refreshed : ingress_state_if {  // a pause ends when its quanta run out
  pause_check recheck_pause(int, int) override { return pause_check::not_paused; }
};
struct recording_buffer : buffer_release_if {
  std::vector<std::array<uint64_t, 4>> released;  // time, port, class, bytes
  uint64_t told_another_time = 0;                 // releases whose now_ps was not the models' time
  void release(int port, int cls, uint32_t bytes, uint64_t now) override {
    told_another_time += now != now_ps();
    released.push_back({now, static_cast<uint64_t>(port), static_cast<uint64_t>(cls), bytes});
  }
};
}  // namespace

TEST(EgressPort, FastPathsSendWhatTheGeneralPathsSend) {
  test::mac_pair m;
  never_refreshed a_ingress, b_ingress;
  pfc a_gate("a_pfc", m.a, 8, &a_ingress);
  same_pfc b_gate("b_pfc", m.b, 8, &b_ingress);
  a_gate.quanta->set(150);  // 150 x 512 bit at 40 Gb/s: a pause of 1.92 us
  b_gate.quanta->set(150);
  recording_buffer a_buffer, b_buffer;
  scheduler_config config;
  for (int q = 0; q < 8; ++q) config.weight[q] = 1 + q % 3;
  config.strict[7] = true;
  config.quantum = 700;
  egress_scheduler a_sched(config);
  same_scheduler b_sched(config);
  egress_port a_out(m.a, a_gate, a_buffer, 8), b_out(m.b, b_gate, b_buffer, 8);
  attach_both(m, a_out, b_out, a_sched, b_sched, a_gate, b_gate);
  std::mt19937_64 rng(11);
  test::step_driver d("driver");
  uint64_t t_ns = 0, frames = 0;
  for (int step = 0; step < 1500; ++step) {
    t_ns += 20 + rng() % 600;                                           // about 70 % of the wire, in bursts
    const int busy = rng() % 10 < 7 ? 3 : static_cast<int>(rng() % 8);  // mostly one class
    const int n = 1 + static_cast<int>(rng() % 2);
    const uint64_t seed = rng();
    const int pause = rng() % 25 == 0 ? static_cast<int>(rng() % 8) : -1;  // both far ends pause a class
    frames += static_cast<uint64_t>(n);
    d.at(sc_time(static_cast<double>(t_ns), sc_core::SC_NS), [&, busy, n, seed, pause] {
      for (egress_port* out : {&a_out, &b_out}) {
        std::mt19937_64 r(seed);  // the same frames on both ports
        for (int i = 0; i < n; ++i) {
          tlm::tlm_generic_payload* p = data_frame(r() % 3 ? busy : static_cast<int>(r() % 8), 64 + r() % 1437);
          packet_header& h = header(*p);
          h.ready_ps = now_ps() + r() % 1500000;  // up to 1.5 us in the pipeline
          h.ingress_port = static_cast<uint16_t>(r() % 4);
          h.ingress_cls = r() % 5 ? same_class : static_cast<uint8_t>(r() % 8);
          out->enqueue(p);
        }
      }
      if (pause >= 0) {
        a_gate.pause_upstream(pause);  // a's far end (b's port) pauses, and the other way round
        b_gate.pause_upstream(pause);
      }
    });
  }
  start(sc_time(static_cast<double>(t_ns + 200000), sc_core::SC_NS));
  EXPECT_TRUE(a_out.asks_pfc_directly() && a_out.asks_scheduler_directly());
  EXPECT_FALSE(b_out.asks_pfc_directly() || b_out.asks_scheduler_directly());
  ASSERT_EQ(m.b_sink.frames.size(), m.a_sink.frames.size());
  uint64_t data = 0;
  for (std::size_t i = 0; i < m.b_sink.frames.size(); ++i) {
    const auto &fast = m.b_sink.frames[i], &general = m.a_sink.frames[i];  // a's frames reach b
    ASSERT_EQ(fast.at_ps, general.at_ps) << i;
    ASSERT_EQ(fast.kind, general.kind) << i;
    ASSERT_EQ(fast.cls, general.cls) << i;
    ASSERT_EQ(fast.size, general.size) << i;
    data += fast.kind == frame_kind::data;
  }
  EXPECT_EQ(data, frames);  // all sent
  uint64_t pauses = 0;
  for (int q = 0; q < 8; ++q) pauses += a_gate.pause_received(q);
  EXPECT_GT(pauses, 30u);
  EXPECT_EQ(a_buffer.released, b_buffer.released);
  EXPECT_EQ(a_buffer.told_another_time + b_buffer.told_another_time, 0u);  // each release at the models' time
  const uint64_t end = now_ps();
  for (int q = 0; q < 8; ++q) {
    EXPECT_EQ(a_out.queue(q).frames_out, b_out.queue(q).frames_out) << q;
    EXPECT_EQ(a_out.queue(q).max_bytes, b_out.queue(q).max_bytes) << q;
    EXPECT_EQ(a_out.queue(q).mean_bytes(end), b_out.queue(q).mean_bytes(end)) << q;
  }
}

// A port whose gate is our PFC tests first the MAC's copy of when the PFC's pauses end (in the
// line of the transmit decision that asks the port; pfc::share_pauses_end), and asks the PFC only
// before then. While b's XOFF pauses a's class 3 the copy is the pause's end, and a frame of that
// class queued during the pause starts exactly then (a copy left behind would let it go at once).
TEST(EgressPort, ItsMacKeepsWhenOurPfcsPausesEndAndAPausedFrameStartsThen) {
  test::mac_pair m;
  never_refreshed a_ingress, b_ingress;
  pfc a_gate("a_pfc", m.a, 8, &a_ingress), b_gate("b_pfc", m.b, 8, &b_ingress);
  a_gate.quanta->set(150);  // 150 x 512 bit at 40 Gb/s: a pause of 1.92 us
  b_gate.quanta->set(150);
  dwrr_ports ports(m, a_gate, b_gate);
  egress_port& a_out = ports.a_out;
  test::step_driver d("driver");
  uint64_t pause_end = 0;
  d.at(sc_time(100, sc_core::SC_NS), [&] { b_gate.pause_upstream(3); });
  d.at(sc_time(2, SC_US), [&] {
    pause_end = m.a.source_pauses_end_ps();
    EXPECT_TRUE(a_gate.paused(3, now_ps()));
    a_out.enqueue(data_frame(3, 1000));
  });
  start(sc_time(10, SC_US));
  EXPECT_TRUE(a_out.asks_pfc_directly());
  EXPECT_GT(pause_end, ns_ps(2000));
  EXPECT_FALSE(a_gate.paused(3, pause_end));
  ASSERT_EQ(m.b_sink.frames.size(), 1u);
  EXPECT_EQ(m.b_sink.frames[0].at_ps, pause_end + ns_ps(200 + 1000));  // 1000 B at 40 Gb/s, 1 us of cable
}

// The mean depth from sums of size x time (queue_stats) is the integral of the depth over time
// the earlier form kept, a product of the depth and the time since the last change at each one.
TEST(EgressPort, TheMeanDepthFromSumsIsTheIntegralOfTheDepth) {
  std::mt19937_64 rng(5);
  queue_stats s;
  unsigned __int128 integral = 0;
  uint64_t t = 0, last = 0;
  std::vector<uint32_t> queued;
  for (int i = 0; i < 200000; ++i) {
    t += rng() % 3 ? rng() % 100000 : (rng() % 2 ? 0 : rng() % (uint64_t{1} << 40));  // ties and long gaps
    integral += static_cast<unsigned __int128>(s.bytes) * (t - last);
    last = t;
    if (queued.empty() || rng() % 2) {
      const uint32_t size = 64 + rng() % 9000;
      s.byte_ps -= queue_stats::byte_time(size, t);
      s.bytes += size;
      queued.push_back(size);
    } else {
      s.byte_ps += queue_stats::byte_time(queued.front(), t);
      s.bytes -= queued.front();
      queued.erase(queued.begin());
    }
    if (i % 997 == 0) {
      const uint64_t now = t + rng() % 1000;
      const unsigned __int128 total = integral + static_cast<unsigned __int128>(s.bytes) * (now - last);
      ASSERT_EQ(s.mean_bytes(now), static_cast<double>(static_cast<long double>(total) / static_cast<long double>(now)))
          << i;
    }
  }
  EXPECT_GT(static_cast<double>(integral), 1e20);  // well past 2^64
}
