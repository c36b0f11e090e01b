// The NIC's transmit scheduler sends a flow paced by its own pacer and without a reaction point
// on a short path (issue 23, tenth round): its frame's size worked out from a full frame's, the
// flow's pace kept beside it, no guard against a reschedule while the frame is built, and our
// own PFC asked inline. These tests fail if that path sends other frames, at other times, or
// counts otherwise than the general path (a limiter through its interface, a gate through its).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "models/nic/nic.h"

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
    fl.spec.size = pick(4) == 0 ? format.mtu * (1 + pick(5)) : pick(6 * format.mtu);  // exact, or a short last frame
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
  }
  for (const flow& f : flows) out.tx_bytes.push_back(f.stats.tx_bytes);
  return out;
}
}  // namespace

TEST(TransmitScheduler, OnRandomFlowsAndPausesTheShortPathSendsWhatTheGeneralPathWould) {
  uint64_t frames = 0, short_last = 0, retries = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const outcome fast = run(seed, true), general = run(seed, false);
    ASSERT_TRUE(fast == general) << "seed " << seed;
    frames += fast.frames.size();
    retries += fast.parked_retries;
    short_last += fast.short_frames;
    uint64_t counted = 0;
    for (uint64_t c : fast.frames_by_class) counted += c;
    EXPECT_EQ(counted, fast.frames.size()) << "seed " << seed;
  }
  EXPECT_GT(frames, 20000u);  // the runs send, pause (retries) and end finite flows on short frames
  EXPECT_GT(retries, 500u);
  EXPECT_GT(short_last, 20u);
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
