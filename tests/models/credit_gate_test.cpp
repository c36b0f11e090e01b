// The flow-control interface is not PFC-shaped: a test-only InfiniBand-style credit gate (per-VL
// credits in 64-byte blocks, up to 16 VLs, credit packets as its own control frames) plugs into
// the same MAC, which stops when credits run out and resumes exactly when a credit packet lands.
#include <gtest/gtest.h>

#include "models/protocol/ib_frame.h"
#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
// Sender side: FCCL (limit advertised by the peer) and FCTBS (blocks sent) per VL.
// Receiver side: the limit it advertises, raised as its buffer releases blocks.
struct credit_gate : flow_control_if {
  mac_port& mac;
  std::array<uint16_t, ib::max_vls> fccl{}, fctbs{}, advertised{};
  uint32_t updates = 0;  // VLs whose new limit waits for the wire
  uint64_t credit_frames_sent = 0, credit_frames_received = 0;
  explicit credit_gate(mac_port& m) : mac(m) { mac.attach_flow_control(this); }

  static uint32_t blocks(uint32_t bytes) { return (bytes + ib::credit_block - 1) / ib::credit_block; }
  int classes() const override { return ib::max_vls; }
  bool may_send(int vl, uint32_t bytes, uint64_t) const override {
    return ib::credit_allows(fccl[vl], fctbs[vl], blocks(bytes));
  }
  uint64_t blocked_until_ps(int, uint64_t) const override { return never_ps; }  // only a credit packet opens
  void on_transmit(int vl, uint32_t bytes) override { fctbs[vl] = (fctbs[vl] + blocks(bytes)) & 0xFFF; }
  tlm::tlm_generic_payload* take_control_frame(uint64_t now_ps) override {
    if (!updates) return nullptr;
    const int vl = __builtin_ctz(updates);
    updates &= updates - 1;
    tlm::tlm_generic_payload* p = packet_pool::instance().acquire(true);  // with a wire image
    packet_header& h = header(*p);
    h.kind = frame_kind::ib_credit;
    h.priority = static_cast<uint8_t>(vl);
    h.size = ib::credit_packet_bytes;
    h.created_ps = now_ps;
    ib::encode_credit({0, 0, static_cast<uint8_t>(vl), advertised[vl]}, *h.image);
    ++credit_frames_sent;
    return p;
  }
  void on_control_frame(tlm::tlm_generic_payload& frame) override {
    ib::credit_packet c;
    const packet_header& h = header(frame);
    if (!h.image || !ib::decode_credit(*h.image, c)) return;
    ++credit_frames_received;
    fccl[c.vl] = c.fccl;
    mac.kick();  // the gate may have opened
  }
  void on_admit(int, uint32_t, bool) override {}
  void on_release(int vl, uint32_t bytes, bool) override {
    advertised[vl] = (advertised[vl] + blocks(bytes)) & 0xFFF;
    updates |= 1u << vl;
    mac.kick();
  }
};

struct releaser : sc_core::sc_module {
  credit_gate& gate;
  explicit releaser(sc_core::sc_module_name n, credit_gate& g) : sc_module(n), gate(g) { SC_THREAD(run); }
  SC_HAS_PROCESS(releaser);
  void run() {
    wait(sc_time(10, SC_US));
    gate.on_release(9, 1024, false);  // a's buffer frees one 1024-byte frame (16 blocks)
  }
};
}  // namespace

TEST(CreditGate, TheMacStopsWithoutCreditAndResumesWhenACreditPacketLands) {
  test::mac_pair m;
  credit_gate a_gate(m.a), b_gate(m.b);
  m.b_src.gate = &b_gate;
  // VL 9 (beyond PFC's 8 classes): 32 blocks of credit, two 1024-byte frames.
  b_gate.fccl[9] = a_gate.advertised[9] = 32;
  m.b_src.add(9, 1024, 5);
  releaser r("releaser", a_gate);
  start(sc_time(20, SC_US));
  // 1024 B at 40 Gb/s: 204.8 ns. The 6-byte credit packet leaves a at 10 us (1.2 ns) and lands
  // at b after 1 us of cable: 11.0012 us, when the third frame starts; then credit is out again.
  ASSERT_EQ(m.b_src.starts.size(), 3u);
  EXPECT_EQ(m.b_src.starts[0], 0u);
  EXPECT_EQ(m.b_src.starts[1], ns_ps(204.8));
  EXPECT_EQ(m.b_src.starts[2], ns_ps(11001.2));
  EXPECT_EQ(b_gate.fctbs[9], 48u);
  EXPECT_EQ(b_gate.fccl[9], 48u);
  EXPECT_EQ(a_gate.credit_frames_sent, 1u);
  EXPECT_EQ(b_gate.credit_frames_received, 1u);
  // Credit packets are link-local: a's sink sees only the three data frames.
  ASSERT_EQ(m.a_sink.frames.size(), 3u);
  EXPECT_EQ(m.a_sink.frames[2].at_ps, ns_ps(11001.2 + 204.8 + 1000));
  EXPECT_EQ(m.a_sink.frames[2].cls, 9);
  EXPECT_EQ(m.wire.ba.bytes(), 3u * 1024);
  EXPECT_EQ(m.wire.ab.bytes(), ib::credit_packet_bytes);
}
