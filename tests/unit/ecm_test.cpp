// ECM (BCN) congestion and reaction points as pure state machines, the BCN encoding helpers and
// the CP chosen by name: scripted queue depths, tags and feedback in; exact feedback, decisions,
// rates and associations out. Expectations are worked out by hand from the equations in
// docs/models/ecm.md (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include "models/cc/congestion_point.h"
#include "models/cc/ecm/ecm_cp_state.h"
#include "models/cc/ecm/ecm_rp_state.h"
#include "models/protocol/bcn_frame.h"
#include "models/protocol/ethernet.h"
#include "tests/support/switch_bench.h"

using namespace sluice;

TEST(Bcn, CpidTagAndFeedbackFromTheTwoFields) {
  const uint64_t cpid = bcn::cpid(eth::mac_address(5, 3), 3);
  EXPECT_EQ(cpid, eth::mac_address(5, 3) << 16 | 3);
  EXPECT_EQ(bcn::tag_of(cpid), 0x80050033u);                         // bit 31 | node 5 << 16 | port 3 << 4 | priority 3
  EXPECT_NE(bcn::tag_of(bcn::cpid(eth::mac_address(0, 0), 0)), 0u);  // never "untagged"
  cnm_pdu p;
  p.q_offset = 10;                                        // 640 B above Qeq
  p.q_delta = -3;                                         // shrank by 192 B
  EXPECT_DOUBLE_EQ(bcn::feedback_bytes(p, 2.0), -256.0);  // -64 x (10 + 2 x (-3)) = -64 x 4
}

TEST(EcmCp, NegativeToAnySourcePositiveOnlyToFramesTaggedWithThisCpid) {
  const ecm_cp_config c{10000, 2.0, 1000, 0.0};  // Qeq 10 000 B, w 2, a sample every 1000 B exactly
  const uint32_t mine = 0x80010023, other = 0x80020023;
  ecm_cp_state cp(1);
  EXPECT_FALSE(cp.on_arrival(500, 20000, 0, mine, c).sampled);  // 500 of 1000 B
  // Sampled (1000 B arrived): Qoff = 20 000 - 10 000 = 10 000, Qdelta = 20 000 - 0;
  // Fb = -(10 000 + 2 x 20 000) = -50 000: negative, whatever the tag.
  ecm_sample s = cp.on_arrival(500, 20000, 0, mine, c);
  ASSERT_TRUE(s.sampled);
  EXPECT_EQ(s.q_offset, 10000);
  EXPECT_EQ(s.q_delta, 20000);
  EXPECT_EQ(s.fb, -50000);
  EXPECT_EQ(s.send, bcn_kind::negative);
  // Q = 9000: Qoff = -1000, Qdelta = 9000 - 20 000 = -11 000, Fb = -(-1000 - 22 000) = 23 000 > 0,
  // and the frame carries this CP's tag: positive.
  s = cp.on_arrival(1000, 9000, mine, mine, c);
  EXPECT_EQ(s.fb, 23000);
  EXPECT_EQ(s.send, bcn_kind::positive);
  // Q = 9000 again: Fb = -(-1000 + 0) = 1000 > 0, but untagged (or another CP's tag): nothing.
  s = cp.on_arrival(1000, 9000, 0, mine, c);
  EXPECT_EQ(s.fb, 1000);
  EXPECT_EQ(s.send, bcn_kind::none);
  EXPECT_EQ(cp.on_arrival(1000, 9000, other, mine, c).send, bcn_kind::none);
  // Q = 10 000: Qoff 0, Qdelta 1000, Fb = -2000: negative, also to another CP's frame.
  s = cp.on_arrival(1000, 10000, other, mine, c);
  EXPECT_EQ(s.fb, -2000);
  EXPECT_EQ(s.send, bcn_kind::negative);
  // Q = 10 000 again: Fb = 0: nothing.
  s = cp.on_arrival(1000, 10000, mine, mine, c);
  EXPECT_TRUE(s.sampled);
  EXPECT_EQ(s.fb, 0);
  EXPECT_EQ(s.send, bcn_kind::none);
}

TEST(EcmCp, JitteredIntervalsStayWithinFifteenPercent) {
  const ecm_cp_config c{10000, 2.0, 1000, 0.15};
  ecm_cp_state cp(7);
  uint64_t since = 0, samples = 0;
  for (int i = 0; i < 100000; ++i) {
    ++since;  // 1-byte frames: the interval in bytes is the count between samples
    if (!cp.on_arrival(1, 0, 0, 1, c).sampled) continue;
    if (samples++) {
      EXPECT_GE(since, 850u);
      EXPECT_LT(since, 1151u);
    }
    since = 0;
  }
  EXPECT_GT(samples, 86u);  // 100 000 / 1150
}

TEST(EcmRp, AimdWithCpidAssociation) {
  ecm_rp_config c{1.0 / 266240, 0.5, 5, 10e6, 10e6, 40e9};  // the defaults, at 40 Gb/s
  c.line_rate = 10e9;
  const uint64_t a = 0xA, b = 0xB;
  ecm_rp_state rp(10e9);
  using r = ecm_rp_state::result;
  EXPECT_EQ(rp.on_bcn(1000, a, c), r::ignored);  // positive while unlimited
  EXPECT_FALSE(rp.limited());
  // Fb = -26 624: R = 10G x (1 - 26 624 / 266 240) = 10G x 0.9 = 9G; associated with a.
  EXPECT_EQ(rp.on_bcn(-26624, a, c), r::cut);
  EXPECT_DOUBLE_EQ(rp.rate(), 9e9);
  EXPECT_EQ(rp.cpid(), a);
  EXPECT_EQ(rp.on_bcn(5000, b, c), r::ignored);  // positive from b: a false positive
  EXPECT_DOUBLE_EQ(rp.rate(), 9e9);
  EXPECT_EQ(rp.on_bcn(5000, a, c), r::increase);  // R + gi x ru = 9G + 5 x 10M = 9.05G
  EXPECT_DOUBLE_EQ(rp.rate(), 9.05e9);
  // Fb = -532 480 from b: 1 - 2 = -1, floored at 1 - 0.5: R = 4.525G; now associated with b.
  EXPECT_EQ(rp.on_bcn(-532480, b, c), r::cut);
  EXPECT_DOUBLE_EQ(rp.rate(), 4.525e9);
  EXPECT_EQ(rp.cpid(), b);
  EXPECT_EQ(rp.on_bcn(5000, a, c), r::ignored);
  EXPECT_EQ(rp.on_bcn(0, b, c), r::ignored);  // Fb = 0: nothing
}

TEST(EcmRp, FloorAndReleaseAtTheLineRate) {
  ecm_rp_config c{1.0 / 266240, 0.5, 5, 10e6, 10e6, 40e9};
  c.line_rate = 100e6;
  ecm_rp_state rp(100e6);
  rp.on_bcn(-266240, 1, c);  // 100M x 0.5 = 50M
  EXPECT_DOUBLE_EQ(rp.rate(), 50e6);
  rp.on_bcn(-266240, 1, c);  // 25M
  rp.on_bcn(-266240, 1, c);  // 12.5M
  rp.on_bcn(-266240, 1, c);  // 6.25M: floored at 10M
  EXPECT_DOUBLE_EQ(rp.rate(), 10e6);
  // Positive: 10M + 50M = 60M, then 110M capped at 100M: released, association dropped.
  EXPECT_EQ(rp.on_bcn(1, 1, c), ecm_rp_state::result::increase);
  EXPECT_DOUBLE_EQ(rp.rate(), 60e6);
  EXPECT_EQ(rp.on_bcn(1, 1, c), ecm_rp_state::result::released);
  EXPECT_DOUBLE_EQ(rp.rate(), 100e6);
  EXPECT_FALSE(rp.limited());
  EXPECT_EQ(rp.cpid(), 0u);
  // A new cut starts again from the line rate.
  rp.on_bcn(-26624, 2, c);
  EXPECT_DOUBLE_EQ(rp.rate(), 90e6);
}

using test::cp_owner;
using test::recording_injector;

TEST(EcmCp, ChosenByNameSendsAVersionOneCnmWithBothFieldsAndTheCpid) {
  cp_owner port("ecm_port");
  recording_injector injector;
  auto cp = cp_policies::instance().make("ecm_port.prio3.cp", "ecm", port, 3, injector);
  ASSERT_TRUE(cp);
  packet_header data = test::sampled_data_frame();
  const queue_view q = test::sampled_queue();
  const uint64_t port_mac = q.port_mac;
  // The first sample after 127.5-172.5 KB: at most 115 frames of 1500 B.
  for (int i = 0; i < 115 && injector.frames.empty(); ++i) cp->on_enqueue(data, q);
  ASSERT_EQ(injector.frames.size(), 1u);
  const packet_header& h = header(*injector.frames[0]);
  EXPECT_EQ(h.kind, frame_kind::cnm);
  EXPECT_EQ(h.dst, 3u);
  EXPECT_EQ(h.flow_id, 11u);
  cnm_pdu pdu;
  ASSERT_TRUE(decode_cnm(*h.image, pdu));
  EXPECT_EQ(pdu.version, bcn::version);
  EXPECT_EQ(pdu.cpid, port_mac << 16 | 3);
  // Q 60 000 against Qold 0 and Qeq 26 624: Qoff 33 376 (521 x 64 B), Qdelta 60 000 (937 x 64 B);
  // Fb = -(33 376 + 120 000) beyond Fbmax 133 120: qFb 63 for a QCN RP.
  EXPECT_EQ(pdu.q_offset, 521);
  EXPECT_EQ(pdu.q_delta, 937);
  EXPECT_EQ(pdu.quantized_feedback, 63);
  injector.frames[0]->release();
}
