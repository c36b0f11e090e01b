// The InfiniBand credit component (models/link/credit_flow_control.*) on a two-MAC bench:
// link-up credit, the stop when credit runs out, the resume exactly when a credit packet lands,
// credit-starvation accounting, VL15 outside flow control, the 12-bit count through wrap-around,
// and the model error when a frame arrives beyond the advertised credit.
#include "models/link/credit_flow_control.h"

#include <gtest/gtest.h>

#include "models/protocol/ib_frame.h"
#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
// Only VL `vl` has an input buffer on this port, of `bytes`.
void only_vl(credit_flow_control& fc, int vl, uint64_t bytes) {
  fc.vls.set(static_cast<uint64_t>(vl) + 1);
  for (int k = 0; k <= vl; ++k) fc.buffer[k]->set(byte_count{k == vl ? bytes : 0});
}
// a <-> b with a credit component each; b's source sends through b's gate; only VL9 has a buffer
// behind a, 2048 bytes (32 blocks: two 1024-byte frames), and b's source has five of them.
struct vl9_bench {
  test::mac_pair m;
  credit_flow_control a_fc{"a_credit", m.a, max_classes}, b_fc{"b_credit", m.b, max_classes};
  vl9_bench() {
    m.a.attach_flow_control(&a_fc);
    m.b.attach_flow_control(&b_fc);
    m.b_src.gate = &b_fc;
    only_vl(a_fc, 9, 2048);         // 32 blocks: two 1024-byte frames
    a_fc.batch.set(byte_count{0});  // a credit packet for every change (both ends alike:
    b_fc.batch.set(byte_count{0});  // on_off() reads the loop from its own port's parameters)
    m.b_src.add(9, 1024, 5);
  }
};
}  // namespace

TEST(CreditFlowControl, StopsWithoutCreditResumesWhenTheCreditPacketLandsAndLetsVl15Through) {
  vl9_bench bench;
  test::mac_pair& m = bench.m;
  credit_flow_control &a_fc = bench.a_fc, &b_fc = bench.b_fc;
  m.b_src.add(15, 64, 2);  // VL15: no credit needed, no buffer behind a
  test::step_driver d("driver");
  d.at(sc_time(10, SC_US), [&] {
    a_fc.on_admit(9, 1024, false);  // the two frames that arrived, as a switch would report them
    a_fc.on_admit(9, 1024, false);
    a_fc.on_release(9, 1024, false);  // ...and one leaves the buffer: 16 blocks return
  });
  start(sc_time(20, SC_US));
  // b's wire: its own 8 link-up credit packets (VL0-7, 1.2 ns each at 40 Gb/s) to 9.6 ns, then
  // VL15 at 9.6 and 22.4 ns (64 B = 12.8 ns) while VL9 has no credit yet. a's one link-up packet
  // (VL9, 0-1.2 ns) lands at b at 1001.2 ns with FCCL 32: two 1024-byte frames (204.8 ns each).
  // At 10 us a returns 16 blocks (its minimum interval since 0 has passed): the packet lands at
  // 10 us + 1.2 ns + 1 us = 11001.2 ns, when the third frame starts; then credit is out again.
  ASSERT_EQ(m.b_src.starts.size(), 5u);
  EXPECT_EQ(m.b_src.starts[0], ns_ps(9.6));
  EXPECT_EQ(m.b_src.starts[1], ns_ps(22.4));
  EXPECT_EQ(m.b_src.starts[2], ns_ps(1001.2));
  EXPECT_EQ(m.b_src.starts[3], ns_ps(1206.0));
  EXPECT_EQ(m.b_src.starts[4], ns_ps(11001.2));
  EXPECT_EQ(m.b_src.classes[0], 15);
  EXPECT_EQ(b_fc.fctbs(9), 48u);
  EXPECT_EQ(b_fc.fccl(9), 48u);  // ABR 32 + 16 free
  EXPECT_EQ(a_fc.packets_sent(), 2u);
  EXPECT_EQ(b_fc.packets_received(), 2u);
  // Starved three times, each from when b's MAC, with the wire free, finds the VL9 frame refused
  // (starvation is recorded at real time, never from a look-ahead): before link-up credit, from
  // 9.6 ns (b's MAC is busy with its eight credit packets until then) to 1001.2 ns; after the
  // second frame (its end, 1410.8 ns) to 11001.2 ns: 9590.4 ns; after the third (11206.0 ns) to
  // the end of the run. VL15 never starves.
  EXPECT_EQ(b_fc.blocked_periods(9), 3u);
  EXPECT_EQ(b_fc.blocked_ps(9, ns_ps(20000)), ns_ps(991.6) + ns_ps(9590.4) + ns_ps(20000 - 11206.0));
  EXPECT_EQ(b_fc.blocked_periods(15), 0u);
  // Credit packets are link-local: a's sink sees only data.
  ASSERT_EQ(m.a_sink.frames.size(), 5u);
  EXPECT_EQ(m.wire.ab.bytes(), 2 * ib::credit_packet_bytes);
}

// TCD's view of a bench like the one above without VL15 (flow_control_if::off_end_ps, on_off): VL9
// is OFF (starved) from when b's MAC, its wire free, finds its frame refused: from 9.6 ns (after
// b's eight link-up credit packets; no link-up credit from a yet) to 1001.2 ns, from 1410.8 ns
// (the end of the second frame; 32 blocks sent) to 11001.2 ns, and from the end of the third on
// (the 16 returned blocks are its). At 0.5 ns it has not been OFF yet.
TEST(CreditFlowControl, ReportsTheEndOfEachStarvationAndItsCreditLoopForTcd) {
  vl9_bench bench;
  credit_flow_control &a_fc = bench.a_fc, &b_fc = bench.b_fc;
  std::vector<uint64_t> seen;
  test::step_driver d("driver");
  auto probe = [&](double at_ns) {
    d.at(sc_time(at_ns, sc_core::SC_NS), [&] { seen.push_back(b_fc.off_end_ps(9, now_ps())); });
  };
  probe(0.5);   // not yet refused: never OFF
  probe(1100);  // ON since the link-up credit landed
  probe(1300);  // the second frame on the wire: not OFF yet (a look-ahead used to say it was)
  probe(5000);  // starved since 1410.8 ns
  d.at(sc_time(10, SC_US), [&] {
    a_fc.on_admit(9, 1024, false);
    a_fc.on_admit(9, 1024, false);
    a_fc.on_release(9, 1024, false);
  });
  probe(11100);  // the third frame on the wire: ON since 11001.2 ns
  start(sc_time(20, SC_US));
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], 0u);
  EXPECT_EQ(seen[1], ns_ps(1001.2));
  EXPECT_EQ(seen[2], ns_ps(1001.2));
  EXPECT_EQ(seen[3], ns_ps(5000));
  EXPECT_EQ(seen[4], ns_ps(11001.2));
  EXPECT_EQ(b_fc.blocked_periods(9), 3u);
  EXPECT_EQ(b_fc.off_end_ps(15, ns_ps(20000)), 0u);  // VL15 is never OFF
  // The loop: one block; tau = min_interval 4.096 us + 2 x 1 us + 6 B at 40 Gb/s (1.2 ns).
  const flow_control_if::on_off_loop loop = b_fc.on_off(9);
  EXPECT_EQ(loop.gap_bytes, 64u);
  EXPECT_EQ(loop.tau_ps, ns_ps(6097.2));
  EXPECT_EQ(loop.rate_bps, 40e9);
  EXPECT_EQ(b_fc.on_off(15).rate_bps, 0.0);
  EXPECT_EQ(b_fc.layer(), link_layer::ib);
}

TEST(CreditFlowControl, CountsBlocksModulo4096AcrossTheWrap) {
  test::mac_pair m;
  credit_flow_control a_fc("a_credit", m.a, max_classes), b_fc("b_credit", m.b, max_classes);
  m.a.attach_flow_control(&a_fc);
  m.b.attach_flow_control(&b_fc);
  m.a.attach(&m.a_src, &a_fc.consuming_sink(m.a_sink));  // a consumes each frame as it lands
  m.b_src.gate = &b_fc;
  only_vl(a_fc, 0, 4096);  // 64 blocks: four frames in flight
  a_fc.min_interval.set(sc_core::SC_ZERO_TIME);
  // The default 8 KiB batch is more than this buffer: a credit packet each time all four frames
  // have left, 300 / 4 = 75, plus the one at link-up and the refreshes every 65.536 us before
  // the last frame (300 frames at ~4 per (2 us cable round trip + 4 x 204.8 ns) end by ~220 us).
  m.b_src.add(0, 1024, 300);  // 300 x 16 = 4800 blocks: FCTBS and ABR wrap once
  start(sc_time(1000, SC_US));
  ASSERT_EQ(m.a_sink.frames.size(), 300u);  // nothing refused, nothing beyond credit
  EXPECT_EQ(b_fc.fctbs(0), 4800u % 4096);   // 704
  // a's last credit packet: ABR 704 + 64 free blocks.
  EXPECT_EQ(a_fc.advertised(0), (4800u + 64) % 4096);
  EXPECT_EQ(b_fc.fccl(0), (4800u + 64) % 4096);
  EXPECT_GE(a_fc.packets_sent(), 1u + 75);
  EXPECT_LE(a_fc.packets_sent(), 1u + 75 + 1000 / 65);  // refreshes through the 1 ms run at most
}

TEST(CreditFlowControl, AFrameBeyondTheAdvertisedCreditIsAModelError) {
  test::mac_pair m;
  credit_flow_control a_fc("a_credit", m.a, max_classes);
  m.a.attach_flow_control(&a_fc);
  only_vl(a_fc, 2, 128);  // two blocks
  start(sc_time(1, SC_US));
  a_fc.on_admit(2, 128, false);
  EXPECT_THROW(a_fc.on_admit(2, 1, false), sc_core::sc_report);
}
