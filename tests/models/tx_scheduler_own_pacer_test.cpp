// A flow paced by its own pacing_limiter (the NIC's default) is read without the limiter
// interface and without a second look at its limiter before each frame, and its frames are a
// copy of a per-flow header (issue 23, ninth round). These tests fail if that path sends other
// frames, at other times, than the general path, or if a bound limiter is not used in its place.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "models/nic/nic.h"
#include "tests/support/scripted_limiter.h"

using namespace sluice;

namespace {
constexpr uint64_t mtu = 1000;

struct frame_seen {
  uint32_t flow;
  uint64_t at_ps, seq, id;
  uint32_t size, payload;
  bool operator==(const frame_seen& o) const {
    return flow == o.flow && at_ps == o.at_ps && seq == o.seq && id == o.id && size == o.size && payload == o.payload;
  }
};

// Constant, finite and on/off flows, started at different times, some at a set rate, whose
// pacers change rate while they run (each change told to the scheduler, as the NIC's hook does).
// own: each flow added with its own pacer; else through the interface (read before every frame).
std::vector<frame_seen> run(bool own) {
  constexpr uint32_t n = 12;
  flow_table flows(n);
  nic host("h0", 0, flows, 2);
  tx_scheduler tx(host.port.mac, host.port.gate(), flows, 2);
  std::vector<std::unique_ptr<pacing_limiter>> pacers;
  for (uint32_t f = 0; f < n; ++f) {
    flow& fl = flows[f];
    fl.id = f;
    fl.spec.dst = 1;
    fl.spec.priority = static_cast<uint8_t>(f % 2);
    fl.spec.kind = f % 3 == 0 ? flow_kind::finite : f % 3 == 1 ? flow_kind::constant : flow_kind::onoff;
    fl.spec.size = (2 + f) * mtu + 100;                  // a short last frame
    fl.spec.rate = data_rate{f % 4 == 0 ? 40e9 : 25e9};  // (0 would ask the link)
    fl.spec.start = sc_core::sc_time(static_cast<double>(f * 150), sc_core::SC_NS);
    fl.spec.on = sc_core::sc_time(2, sc_core::SC_US);
    fl.spec.off = sc_core::sc_time(1, sc_core::SC_US);
    pacers.push_back(std::make_unique<pacing_limiter>(data_rate{f % 2 ? 20e9 : 0.0}));
    pacers.back()->on_change([&tx, f] { tx.reschedule(f); });
    if (own)
      tx.add_flow(f, *pacers.back());
    else
      tx.add_flow(f, pacers.back().get(), nullptr);
  }
  frame_format format;
  format.mtu = mtu;
  format.header = 62;
  format.node_id = 7;
  tx.start(format);
  std::vector<frame_seen> seen;
  uint64_t now = 0, first_id = 0;
  for (int step = 0; step < 3000; ++step) {
    if (step % 40 == 39)  // a rate change, told: re-ordered at once
      pacers[static_cast<uint32_t>(step / 40) % n]->set_rate(data_rate{5e9 * (1 + step % 7)});
    uint64_t retry = never_ps;
    tlm::tlm_generic_payload* p = tx.next_frame(now, retry);
    if (!p) {
      if (retry == never_ps) break;
      now = retry;
      continue;
    }
    const packet_header& h = header(*p);
    EXPECT_EQ(h.kind, frame_kind::data);
    EXPECT_EQ(h.src, 7u);
    EXPECT_EQ(h.dst, 1u);
    EXPECT_EQ(h.sl, flows[h.flow_id].spec.priority);
    EXPECT_EQ(h.priority, h.sl);
    EXPECT_EQ(h.created_ps, now);
    EXPECT_EQ(h.ingress_port, no_ingress);
    EXPECT_EQ(h.ingress_cls, same_class);
    if (seen.empty()) first_id = h.id();  // the pool numbers frames across runs
    seen.push_back({h.flow_id, now, h.seq, h.id() - first_id, h.size, h.payload});
    p->release();
    now += 300;
  }
  return seen;
}
}  // namespace

TEST(TransmitScheduler, AFlowsOwnPacerSendsWhatTheInterfaceWouldHave) {
  const std::vector<frame_seen> own = run(true), general = run(false);
  ASSERT_GT(own.size(), 500u);
  EXPECT_TRUE(own == general);
  // The short last frame of a finite flow, and a frame padded by nothing (62-byte header).
  bool short_last = false;
  for (const frame_seen& s : own) short_last |= s.payload == 100 && s.size == 162;
  EXPECT_TRUE(short_last);
  for (std::size_t i = 1; i < own.size(); ++i) EXPECT_GT(own[i].id, own[i - 1].id);  // ids in order
}

namespace {
// Moves its time without telling the scheduler.
using silent_limiter = test::scripted_limiter;
}  // namespace

// A limiter bound in place of the flow's own pacer is used, and read again before each frame.
TEST(TransmitScheduler, ALimiterBoundInPlaceOfTheOwnPacerIsUsedAndReadBeforeEachFrame) {
  flow_table flows(1);
  flows[0].spec.rate = data_rate{100e9};
  nic host("h0", 0, flows, 1);
  tx_scheduler tx(host.port.mac, host.port.gate(), flows, 1);
  pacing_limiter own;
  silent_limiter bound;
  tx.add_flow(0, own);
  EXPECT_EQ(tx.limiter_of(0), &own);
  tx.bind_limiter(0, &bound);
  EXPECT_EQ(tx.limiter_of(0), &bound);
  EXPECT_EQ(tx.limiter_of(1), nullptr);  // not a flow here
  tx.start(frame_format{});
  uint64_t retry = never_ps;
  tlm::tlm_generic_payload* p = tx.next_frame(0, retry);
  ASSERT_NE(p, nullptr);
  p->release();
  EXPECT_EQ(bound.sends, 1);
  bound.next = 5000;  // untold: the scheduler still thinks the flow is ready at 0
  retry = never_ps;
  EXPECT_EQ(tx.next_frame(1000, retry), nullptr);
  EXPECT_EQ(retry, 5000u);
  p = tx.next_frame(5000, retry);
  ASSERT_NE(p, nullptr);
  p->release();
  EXPECT_EQ(bound.sends, 2);
}

// nic::limiter reads the scheduler's limiter: the flow's own, then the one bound.
TEST(Nic, LimiterIsTheOwnPacerUntilOneIsBound) {
  flow_table flows(2);
  flows[0].spec.dst = 1;
  nic host("h0", 0, flows, 1);
  host.add_flow(0);
  rate_limiter_if& own = host.limiter(0);
  EXPECT_NE(dynamic_cast<pacing_limiter*>(&own), nullptr);
  EXPECT_THROW(host.limiter(1), config_error);
  silent_limiter bound;
  host.bind_limiter(0, bound);
  EXPECT_EQ(&host.limiter(0), &bound);
  EXPECT_EQ(host.transmitter().limiter_of(0), &bound);
}

// The pacer keeps the last frame's time on the wire and reuses it for a frame of the same size at
// the same pace (issue 23, thirteenth round): random frames (repeated sizes and paces, 0 bytes,
// the wire's rate or the flow's), rate changes (to none, below and above the pace) between
// them, against the division each time (start + B x 8 / min(rate, pace)).
TEST(PacingLimiter, AFrameLikeTheLastTakesWhatTheDivisionGives) {
  std::mt19937_64 rng(23);
  auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  const uint64_t sizes[] = {0, 64, 1000, 1062, 4096};
  const double paces[] = {10e9, 25e9, 40e9, 100e9};
  const double rates[] = {0, 1e9, 7.5e9, 30e9, 200e9};
  pacing_limiter pacer(data_rate{rates[pick(5)]});
  data_rate rate = pacer.rate();
  uint64_t next = 0, last_start = 0, last_bytes = 0;
  data_rate last_pace{0};
  auto time_of = [&](uint64_t bytes, data_rate pace) {
    return (rate.bps > 0 && rate < pace ? rate : pace).serialization_ps(bytes);
  };
  uint64_t now = 0, repeats = 0;
  for (int step = 0; step < 200000; ++step) {
    if (pick(10) == 0) {
      rate = data_rate{rates[pick(5)]};
      pacer.set_rate(rate);
      if (last_bytes) next = last_start + time_of(last_bytes, last_pace);
    } else {
      const uint64_t bytes = pick(3) == 0 ? sizes[pick(5)] : last_bytes;
      const data_rate pace = pick(4) == 0 ? data_rate{paces[pick(4)]} : last_pace.bps > 0 ? last_pace : data_rate{40e9};
      repeats += bytes == last_bytes && pace == last_pace;
      now += pick(2) ? pick(400000) : 0;
      pacer.on_send(now, bytes, pace);
      last_start = std::max(next, now);
      next = last_start + time_of(bytes, pace);
      last_bytes = bytes;
      last_pace = pace;
    }
    ASSERT_EQ(pacer.next_send_ps(), next) << "step " << step;
  }
  EXPECT_GT(repeats, 100000u);  // most frames reuse the last one's time
}
