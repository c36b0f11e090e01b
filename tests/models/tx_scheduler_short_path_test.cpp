// The NIC's transmit scheduler sends a flow paced by its own pacer and without a reaction point
// on a short path (issue 23, tenth round): its frame's size worked out from a full frame's, the
// flow's pace kept beside it, no guard against a reschedule while the frame is built, and our
// own PFC asked inline; in the eleventh round the commonest frame on a fast path of its own.
// These tests fail if those paths send other frames, at other times, or count otherwise than the
// general path (a limiter through its interface, a gate through its).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "models/link/link.h"
#include "models/nic/nic.h"
#include "tests/support/mac_bench.h"

using namespace sluice;

namespace {
// A PFC whose classes close on a script (a window of each period, shifted by class): a subclass,
// so the scheduler asks it through the interface, the same in both runs.
struct scripted_gate : pfc {
  using pfc::pfc;
  uint64_t period = 1, closed_for = 0;
  bool closed(int cls, uint64_t now_ps) const {
    return (now_ps + static_cast<uint64_t>(cls) * 7919) % period < closed_for;
  }
  bool may_send(int cls, uint32_t, uint64_t now_ps) const override { return !closed(cls, now_ps); }
  uint64_t blocked_until_ps(int cls, uint64_t now_ps) const override {
    if (!closed(cls, now_ps)) return now_ps;
    return now_ps + closed_for - (now_ps + static_cast<uint64_t>(cls) * 7919) % period;
  }
};

// Counts what it is shown; every few frames changes its flow's rate, which reschedules the flow
// while its frame is built (as DCQCN's byte counter does).
struct counting_rp : reaction_point_if {
  explicit counting_rp(rate_limiter_if& l) : limiter(l) {}
  rate_limiter_if& limiter;
  uint64_t sends = 0;
  void on_feedback(const packet_header&, uint64_t) override {}
  void on_send(const packet_header&, uint64_t) override {
    if (++sends % 5 == 0) limiter.set_rate(data_rate{1e9 * static_cast<double>(1 + sends % 13)});
  }
};

struct frame_seen {
  uint32_t flow;
  uint64_t at_ps, seq, id, next_ready_ps;
  uint32_t size, payload;
  uint8_t priority;
  bool operator==(const frame_seen& o) const {
    return flow == o.flow && at_ps == o.at_ps && seq == o.seq && id == o.id && next_ready_ps == o.next_ready_ps &&
           size == o.size && payload == o.payload && priority == o.priority;
  }
};

struct outcome {
  std::vector<frame_seen> frames;
  std::vector<uint64_t> frames_by_class, bytes_by_class, tx_bytes;
  uint64_t parked_retries = 0, short_frames = 0;  // a finite flow's last frames, shorter than the MTU
  bool operator==(const outcome& o) const {
    return frames == o.frames && frames_by_class == o.frames_by_class && bytes_by_class == o.bytes_by_class &&
           tx_bytes == o.tx_bytes && parked_retries == o.parked_retries;
  }
};

// Random flows (constant, finite with short and exact last frames, on/off), frame formats and
// pauses, from `seed`; the MAC played by the loop (a frame's serialization at 40 Gb/s, then
// next_ready_ps). short_path: flows added with their own pacers (those without a reaction point
// take the short path); else each through the limiter interface.
outcome run(uint32_t seed, bool short_path) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  const uint32_t n = 1 + static_cast<uint32_t>(pick(10));
  constexpr int classes = 3;
  flow_table flows(n);
  nic host("h0", 0, flows, classes);
  scripted_gate gate("gate", host.port.mac, classes, nullptr);
  gate.period = 2000 + pick(40000);
  gate.closed_for = pick(2) ? pick(gate.period / 2) : 0;
  tx_scheduler tx(host.port.mac, gate, flows, classes);
  frame_format format;
  const uint64_t mtus[] = {256, 1000, 1500, 4096};
  format.mtu = mtus[pick(4)];
  format.header = pick(2) ? 62 : 0;
  format.min_frame = pick(2) ? 64 : 512;
  format.node_id = 7;
  std::vector<std::unique_ptr<pacing_limiter>> pacers;
  std::vector<std::unique_ptr<counting_rp>> rps;
  for (uint32_t f = 0; f < n; ++f) {
    flow& fl = flows[f];
    fl.id = f;
    fl.spec.dst = 1;
    fl.spec.priority = static_cast<uint8_t>(pick(classes));
    const uint64_t k = pick(3);
    fl.spec.kind = k == 0 ? flow_kind::finite : k == 1 ? flow_kind::constant : flow_kind::onoff;
    // Exact, empty (one frame without payload), or a short last frame.
    fl.spec.size = pick(4) == 0 ? format.mtu * pick(6) : pick(6 * format.mtu);
    fl.spec.rate = data_rate{1e9 * static_cast<double>(1 + pick(100))};
    fl.spec.start = sc_core::sc_time(static_cast<double>(pick(2000)), sc_core::SC_NS);
    fl.spec.on = sc_core::sc_time(static_cast<double>(500 + pick(3000)), sc_core::SC_NS);
    fl.spec.off = sc_core::sc_time(static_cast<double>(100 + pick(2000)), sc_core::SC_NS);
    pacers.push_back(
        std::make_unique<pacing_limiter>(data_rate{pick(2) ? 1e9 * static_cast<double>(1 + pick(40)) : 0}));
    pacers.back()->on_change([&tx, f] { tx.reschedule(f); });
    if (short_path)
      tx.add_flow(f, *pacers.back());
    else
      tx.add_flow(f, pacers.back().get(), nullptr);
    if (pick(4) == 0) {
      rps.push_back(std::make_unique<counting_rp>(*pacers.back()));
      tx.set_reaction_point(f, rps.back().get());
    }
  }
  tx.start(format);
  outcome out;
  uint64_t now = 0, first_id = 0;
  for (int step = 0; step < 4000; ++step) {
    if (step % 53 == 52)  // a rate change from outside, told: re-ordered at once
      pacers[pick(n)]->set_rate(data_rate{1e9 * static_cast<double>(1 + pick(50))});
    uint64_t retry = never_ps;
    tlm::tlm_generic_payload* p = tx.next_frame(now, retry);
    if (!p) {
      if (retry == never_ps) break;
      ++out.parked_retries;
      now = retry;
      continue;
    }
    const packet_header& h = header(*p);
    EXPECT_EQ(h.kind, frame_kind::data);
    EXPECT_EQ(h.src, 7u);
    EXPECT_EQ(h.dst, 1u);
    EXPECT_EQ(h.created_ps, now);
    if (out.frames.empty()) first_id = h.id();  // the pool numbers frames across runs
    const uint64_t busy_until = now + data_rate{40e9}.serialization_ps(h.size);
    const uint64_t next = tx.next_ready_ps(busy_until);
    out.frames.push_back({h.flow_id, now, h.seq, h.id() - first_id, next, h.size, h.payload, h.priority});
    out.short_frames += h.payload < format.mtu;
    p->release();
    now = next == never_ps ? busy_until : std::max(next, busy_until);
  }
  for (int c = 0; c < classes; ++c) {
    out.frames_by_class.push_back(tx.sent(c).frames);
    out.bytes_by_class.push_back(tx.sent(c).bytes);
    // Counted from the bytes each flow sent: the frames and wire bytes of the class seen here.
    uint64_t seen = 0, seen_bytes = 0;
    for (const frame_seen& f : out.frames)
      if (f.priority == c) {
        ++seen;
        seen_bytes += f.size;
      }
    EXPECT_EQ(out.frames_by_class.back(), seen) << "seed " << seed << " class " << c;
    EXPECT_EQ(out.bytes_by_class.back(), seen_bytes) << "seed " << seed << " class " << c;
  }
  for (const flow& f : flows) out.tx_bytes.push_back(f.stats.tx_bytes);
  return out;
}
}  // namespace

TEST(TransmitScheduler, OnRandomFlowsAndPausesTheShortPathSendsWhatTheGeneralPathWould) {
  uint64_t frames = 0, short_last = 0, retries = 0, empty = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const outcome fast = run(seed, true), general = run(seed, false);
    ASSERT_TRUE(fast == general) << "seed " << seed;
    frames += fast.frames.size();
    retries += fast.parked_retries;
    short_last += fast.short_frames;
    for (const frame_seen& f : fast.frames) empty += f.payload == 0;
    uint64_t counted = 0;
    for (uint64_t c : fast.frames_by_class) counted += c;
    EXPECT_EQ(counted, fast.frames.size()) << "seed " << seed;
  }
  EXPECT_GT(frames, 20000u);  // the runs send, pause (retries) and end finite flows on short frames
  EXPECT_GT(retries, 500u);
  EXPECT_GT(short_last, 20u);
  EXPECT_GT(empty, 2u);
}

// The scheduler asks the NIC's PFC inline when it is our PFC itself; a subclass, which may answer
// differently (here it keeps class 1 closed), through the interface.
namespace {
struct closed_pfc : pfc {
  using pfc::pfc;
  bool may_send(int cls, uint32_t, uint64_t) const override { return cls != 1; }
  uint64_t blocked_until_ps(int cls, uint64_t now_ps) const override { return cls == 1 ? never_ps : now_ps; }
};

uint64_t frames_sent_on_class_1(bool subclass) {
  flow_table flows(1);
  flows[0].spec.priority = 1;
  flows[0].spec.rate = data_rate{10e9};
  nic host("h0", 0, flows, 2);
  closed_pfc closed("closed", host.port.mac, 2, nullptr);
  tx_scheduler tx(host.port.mac, subclass ? static_cast<flow_control_if&>(closed) : host.port.flow_control, flows, 2);
  pacing_limiter own;
  tx.add_flow(0, own);
  tx.start(frame_format{});
  uint64_t retry = never_ps;
  for (uint64_t now = 0; now < 10'000'000; now += 1'000'000)
    if (tlm::tlm_generic_payload* p = tx.next_frame(now, retry)) p->release();
  return tx.sent(1).frames;
}
}  // namespace

TEST(TransmitScheduler, AsksOurPfcInlineAndASubclassThroughTheInterface) {
  EXPECT_EQ(frames_sent_on_class_1(true), 0u);    // the subclass keeps class 1 closed
  EXPECT_EQ(frames_sent_on_class_1(false), 10u);  // our PFC has paused nothing
}

// The fast path (next_frame itself: nothing else waiting, the top flow due, plain and paced at its
// own rate, its frame full, our own PFC open) must send what the general path (next_frame_any)
// sends. Eight pairs of transmitters face each other, each on its link: a's scheduler has our own
// PFC and its flows on their own pacers (the fast path where it applies), b's a subclass of PFC
// that changes nothing and the same flows through the limiter interface (the general path always).
// Random flows (constant, finite, on/off; at their own rate or the wire's; a fifth with a reaction
// point that changes its rate), random frame formats, rate changes from outside and the same
// pauses from either far end: each wire must carry the same frames at the same picoseconds, and
// each scheduler count the same per class and per flow.
namespace {
struct same_pfc : pfc {
  using pfc::pfc;
};
struct never_refreshed : ingress_state_if {  // a pause ends when its quanta run out
  pause_check recheck_pause(int, int) override { return pause_check::not_paused; }
};
struct frame_sink : frame_sink_if {
  struct seen {
    uint64_t at_ps, seq, created_ps;
    frame_kind kind;
    uint32_t flow, size, payload;
    uint8_t priority;
    bool operator==(const seen& o) const {
      return at_ps == o.at_ps && seq == o.seq && created_ps == o.created_ps && kind == o.kind && flow == o.flow &&
             size == o.size && payload == o.payload && priority == o.priority;
    }
  };
  std::vector<seen> frames;
  void receive_frame(tlm::tlm_generic_payload* p, int) override {
    const packet_header& h = header(*p);
    frames.push_back({now_ps(), h.seq, h.created_ps, h.kind, h.flow_id, h.size, h.payload, h.priority});
    p->release();
  }
};

constexpr int pair_classes = 3;

// One pair: a (the fast path) and b (the general path) on one link, with the same flows.
struct transmitter_pair {
  std::string tag;
  sluice::link wire;
  mac_port a, b;
  never_refreshed a_ingress, b_ingress;
  pfc a_gate;
  same_pfc b_gate;
  frame_sink a_sink, b_sink;  // a_sink hears b, b_sink hears a
  flow_table a_flows, b_flows;
  tx_scheduler a_tx, b_tx;
  std::vector<std::unique_ptr<pacing_limiter>> a_pacers, b_pacers;
  std::vector<std::unique_ptr<counting_rp>> rps;

  transmitter_pair(int k, uint32_t n)
      : tag(std::to_string(k)),
        wire(("wire" + tag).c_str(), data_rate{40e9}, sc_core::sc_time(1, sc_core::SC_US)),
        a(("a" + tag).c_str(), 0, 0x020000000001ull + 2 * static_cast<uint64_t>(k)),
        b(("b" + tag).c_str(), 0, 0x020000000002ull + 2 * static_cast<uint64_t>(k)),
        a_gate(("a_pfc" + tag).c_str(), a, pair_classes, &a_ingress),
        b_gate(("b_pfc" + tag).c_str(), b, pair_classes, &b_ingress),
        a_flows(n),
        b_flows(n),
        a_tx(a, a_gate, a_flows, pair_classes),
        b_tx(b, b_gate, b_flows, pair_classes) {
    a.tx.bind(wire.ab.in);
    wire.ab.out.bind(b.rx);
    b.tx.bind(wire.ba.in);
    wire.ba.out.bind(a.rx);
    a.attach_wire(&wire);
    b.attach_wire(&wire);
    a.attach_flow_control(&a_gate);
    b.attach_flow_control(&b_gate);
    a.attach(&a_tx, &a_sink);
    b.attach(&b_tx, &b_sink);
  }
};

// `pairs` pairs from seeds first_seed on, each sending 1 to max_flows flows; the frames of data
// and the PFC frames each pair's a received (pauses) are added to *data and *pauses. aimed:
// every other pair's flows are such as the fast path takes (paced at their own rate, not on/off,
// no reaction point) and its pauses close the first flow's class.
void expect_the_same_frames(int pairs, uint64_t first_seed, uint64_t max_flows, bool aimed, uint64_t* data,
                            uint64_t* pauses) {
  std::vector<std::unique_ptr<transmitter_pair>> benches;
  test::step_driver d("driver");
  std::vector<std::pair<uint64_t, std::function<void()>>> steps;  // (ns, action), sorted below
  for (int k = 0; k < pairs; ++k) {
    std::mt19937_64 rng(first_seed + static_cast<uint64_t>(k));
    auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
    const uint32_t n = 1 + static_cast<uint32_t>(pick(max_flows));
    benches.push_back(std::make_unique<transmitter_pair>(k, n));
    transmitter_pair& t = *benches.back();
    const uint64_t quanta = 50 + pick(400);  // x 512 bit at 40 Gb/s: 0.64-5.8 us
    t.a_gate.quanta->set(quanta);
    t.b_gate.quanta->set(quanta);
    frame_format format;
    const uint64_t mtus[] = {256, 1000, 1500, 4096};
    format.mtu = mtus[pick(4)];
    format.header = pick(2) ? 62 : 0;
    format.min_frame = pick(2) ? 64 : 512;
    for (uint32_t f = 0; f < n; ++f) {
      flow_spec spec;
      spec.dst = 1;
      spec.priority = static_cast<uint8_t>(pick(pair_classes));
      const uint64_t kind = pick(3);
      spec.kind = kind == 0 ? flow_kind::finite : kind == 1 ? flow_kind::constant : flow_kind::onoff;
      spec.size = pick(4) == 0 ? format.mtu * (1 + pick(40)) : pick(60 * format.mtu);  // exact, or a short last frame
      spec.rate = data_rate{pick(5) == 0 ? 0 : 1e9 * static_cast<double>(1 + pick(40))};  // 0: the wire's rate
      spec.start = sc_core::sc_time(static_cast<double>(pick(2000)), sc_core::SC_NS);
      spec.on = sc_core::sc_time(static_cast<double>(500 + pick(3000)), sc_core::SC_NS);
      spec.off = sc_core::sc_time(static_cast<double>(100 + pick(2000)), sc_core::SC_NS);
      const data_rate limit{pick(2) ? 1e9 * static_cast<double>(1 + pick(40)) : 0};
      bool with_rp = pick(5) == 0;
      if (aimed && k % 2 == 0) {
        if (spec.kind == flow_kind::onoff) spec.kind = flow_kind::constant;
        if (spec.rate.bps == 0) spec.rate = data_rate{25e9};
        with_rp = false;
      }
      for (bool fast : {true, false}) {
        flow& fl = (fast ? t.a_flows : t.b_flows)[f];
        fl.id = f;
        fl.spec = spec;
        tx_scheduler& tx = fast ? t.a_tx : t.b_tx;
        auto& pacers = fast ? t.a_pacers : t.b_pacers;
        pacers.push_back(std::make_unique<pacing_limiter>(limit));
        pacers.back()->on_change([&tx, f] { tx.reschedule(f); });
        if (fast)
          tx.add_flow(f, *pacers.back());
        else
          tx.add_flow(f, pacers.back().get(), nullptr);
        if (with_rp) {
          t.rps.push_back(std::make_unique<counting_rp>(*pacers.back()));
          tx.set_reaction_point(f, t.rps.back().get());
        }
      }
    }
    t.a_tx.start(format);
    t.b_tx.start(format);
    steps.emplace_back(0, [&t] {
      t.a.kick();
      t.b.kick();
    });
    for (uint64_t ns = 0; ns < 300000;) {
      ns += 200 + pick(3000);
      if (pick(3) == 0) {  // a rate change from outside, the same on both
        const uint32_t f = static_cast<uint32_t>(pick(n));
        const data_rate r{1e9 * static_cast<double>(1 + pick(50))};
        steps.emplace_back(ns, [&t, f, r] {
          t.a_pacers[f]->set_rate(r);
          t.b_pacers[f]->set_rate(r);
        });
      } else if (pick(2) == 0) {  // each far end pauses a class of the other
        int cls = static_cast<int>(pick(pair_classes));
        if (aimed && k % 2 == 0) cls = t.a_flows[0].spec.priority;
        steps.emplace_back(ns, [&t, cls] {
          t.a_gate.pause_upstream(cls);
          t.b_gate.pause_upstream(cls);
        });
      }
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [ns, f] : steps) d.at(sc_core::sc_time(static_cast<double>(ns), sc_core::SC_NS), f);
  start(sc_core::sc_time(320, sc_core::SC_US));

  for (const auto& tp : benches) {
    const transmitter_pair& t = *tp;
    ASSERT_TRUE(t.a.asks_pfc_directly());
    ASSERT_FALSE(t.b.asks_pfc_directly());
    ASSERT_EQ(t.b_sink.frames.size(), t.a_sink.frames.size()) << t.tag;
    for (std::size_t i = 0; i < t.b_sink.frames.size(); ++i) {
      ASSERT_TRUE(t.b_sink.frames[i] == t.a_sink.frames[i]) << t.tag << " frame " << i;  // a's frames reach b
      *data += t.b_sink.frames[i].kind == frame_kind::data;
    }
    for (int c = 0; c < pair_classes; ++c) {
      EXPECT_EQ(t.a_tx.sent(c).frames, t.b_tx.sent(c).frames) << t.tag;
      EXPECT_EQ(t.a_tx.sent(c).bytes, t.b_tx.sent(c).bytes) << t.tag;
      *pauses += t.a_gate.pause_received(c);
    }
    for (std::size_t f = 0; f < t.a_flows.size(); ++f)
      EXPECT_EQ(t.a_flows[f].stats.tx_bytes, t.b_flows[f].stats.tx_bytes) << t.tag;
  }
}
}  // namespace

TEST(TransmitScheduler, BehindOurPfcTheFastPathSendsWhatTheGeneralPathSends) {
  uint64_t data = 0, pauses = 0;
  expect_the_same_frames(8, 100, 6, false, &data, &pauses);
  EXPECT_GT(data, 5000u);  // each pair sends, and is paused
  EXPECT_GT(pauses, 300u);
}

// A NIC sending one flow (the incast's senders) parks it when its class is paused and puts it
// back when the class opens on paths of their own (park_top, unpark_alone, issue 23, thirteenth
// round): the same frames at the same times as the general path's park and unpark. Half the
// pairs aim at those paths (their flow's class paused, the flow one the fast path takes).
TEST(TransmitScheduler, AFlowAloneParkedAndPutBackSendsWhatTheGeneralPathSends) {
  uint64_t data = 0, pauses = 0;
  expect_the_same_frames(16, 300, 1, true, &data, &pauses);
  EXPECT_GT(data, 4000u);
  EXPECT_GT(pauses, 500u);
}
