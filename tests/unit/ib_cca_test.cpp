// IB CCA's source state machine and table (models/cc/ib_cca/ib_cca_rp.h), from a scripted
// BECN and timer sequence, by hand.
#include <gtest/gtest.h>

#include "models/cc/congestion_point.h"
#include "models/cc/ib_cca/ib_cca_rp.h"
#include "models/core/params.h"

using namespace sluice;

TEST(IbCca, CctiRisesByTheIncreaseCapsAtTheLimitAndTheTimerDecaysItToTheMinimum) {
  const ib_cca_config c{2, 10, 1};  // increase 2, limit 10, min 1
  ib_cca_state s;
  EXPECT_TRUE(s.on_becn(c));   // 0 -> 2: the idle timer starts
  EXPECT_FALSE(s.on_becn(c));  // 4: already running
  EXPECT_FALSE(s.on_becn(c));  // 6
  EXPECT_EQ(s.ccti(), 6u);
  s.on_becn(c);  // 8
  s.on_becn(c);  // 10
  s.on_becn(c);  // min(12, 10) = 10
  EXPECT_EQ(s.ccti(), 10u);
  // Nine expiries take it from 10 to 1 = CCTI_Min; the timer stops with the ninth.
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(s.on_timer(c)) << i;
  EXPECT_FALSE(s.on_timer(c));
  EXPECT_EQ(s.ccti(), 1u);
  EXPECT_FALSE(s.timer_running());
  EXPECT_TRUE(s.on_becn(c));  // 3, and the timer starts again
  EXPECT_EQ(s.ccti(), 3u);
  EXPECT_EQ(s.becns(), 7u);
}

// TCD's hold (ib-cca-tcd, UE): CCTI unchanged; a running timer's expiries before now + timer do
// nothing (the policy re-arms at hold_until); without a running timer a hold holds nothing.
TEST(IbCca, HoldKeepsCctiAndDefersTheNextDecrementByAFullTimer) {
  const ib_cca_config c{1, 127, 0};
  ib_cca_state s;
  s.on_hold(1000, 150);
  EXPECT_FALSE(s.held(1000));  // idle timer: nothing to hold
  EXPECT_TRUE(s.on_becn(c));   // CCTI 1, the timer starts (say at 0, expiring at 150)
  EXPECT_FALSE(s.on_becn(c));  // 2 (the timer already runs)
  s.on_hold(100, 150);         // UE at 100: no decrement before 250
  EXPECT_EQ(s.ccti(), 2u);
  EXPECT_TRUE(s.held(150));  // the expiry at 150 is inside the hold: re-armed at 250
  EXPECT_EQ(s.hold_until(), 250u);
  EXPECT_FALSE(s.held(250));
  EXPECT_TRUE(s.on_timer(c));  // at 250: 2 -> 1
  EXPECT_EQ(s.ccti(), 1u);
  EXPECT_EQ(s.holds(), 2u);
  EXPECT_EQ(s.becns(), 2u);
}

TEST(IbCca, TheTableGivesTheInterPacketDelayAndItsRate) {
  // Quadratic, limit 127, 57 packet times at the end: entry i = floor(57 (i/127)^2).
  auto q = make_cct(127, 57, true);
  ASSERT_EQ(q.size(), 128u);
  EXPECT_EQ(q[0].multiplier, 0);
  EXPECT_EQ(q[127].multiplier, 57);
  EXPECT_EQ(q[64].multiplier, 14);  // 57 x 0.25395 = 14.48
  // Linear, limit 126, 10 at the end: entry 63 = 5.
  EXPECT_EQ(make_cct(126, 10, false)[63].multiplier, 5);
  // A packet time then IPD = (T >> shift) x multiplier of silence: share 1 / (1 + m / 2^shift).
  EXPECT_DOUBLE_EQ((cct_entry{0, 57}.rate_share()), 1.0 / 58);
  EXPECT_DOUBLE_EQ((cct_entry{2, 8}.rate_share()), 1.0 / 3);
  EXPECT_DOUBLE_EQ((cct_entry{0, 0}.rate_share()), 1.0);
}

TEST(IbCca, ATableLoadedEntryByEntryGivesEachEntrysDelay) {
  // IPD = (T_pkt >> shift) x multiplier; share = T / (T + IPD) = 1 / (1 + m / 2^shift).
  const auto t = parse_cct("0:0, 2:8 1:6,,0:5\t3:16383", "h0.rp.cct");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[1].shift, 2);
  EXPECT_EQ(t[1].multiplier, 8);
  EXPECT_DOUBLE_EQ(t[0].rate_share(), 1.0);          // no delay
  EXPECT_DOUBLE_EQ(t[1].rate_share(), 1.0 / 3);      // (T >> 2) x 8 = 2T
  EXPECT_DOUBLE_EQ(t[2].rate_share(), 1.0 / 4);      // (T >> 1) x 6 = 3T
  EXPECT_DOUBLE_EQ(t[3].rate_share(), 1.0 / 6);      // 5T
  EXPECT_DOUBLE_EQ(t[4].rate_share(), 8.0 / 16391);  // (T >> 3) x 16383: 1 / (1 + 16383 / 8)
}

TEST(IbCca, ABadLoadedTableIsAOneLineErrorNamingTheEntry) {
  const auto error = [](const std::string& text) {
    try {
      parse_cct(text, "h0.rp.cct");
    } catch (const config_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("0:0 1-3"), "h0.rp.cct: '1-3' (entry 1) is not shift:multiplier");
  EXPECT_EQ(error("0:0 :3"), "h0.rp.cct: ':3' (entry 1) is not shift:multiplier");
  EXPECT_EQ(error("0:x"), "h0.rp.cct: '0:x' (entry 0) is not shift:multiplier");
  EXPECT_EQ(error("0:0 0:1 4:1"), "h0.rp.cct: '4:1' (entry 2) has a shift above 3 (2 bits)");
  EXPECT_EQ(error("0:16384"), "h0.rp.cct: '0:16384' (entry 0) has a multiplier above 16383 (14 bits)");
  EXPECT_EQ(error(" , "), "h0.rp.cct: ' , ' is an empty table");
}

namespace {
struct cp_owner : sc_core::sc_module {
  explicit cp_owner(sc_core::sc_module_name n) : sc_module(n) {}
};
struct no_injector : frame_injector_if {
  void inject(tlm::tlm_generic_payload*) override {}
  uint32_t node_id() const override { return 0; }
};
}  // namespace

TEST(IbCcaCp, MarksFecnWhileCongestedWithHysteresisMarkingRateAndMinimumSize) {
  cp_owner port("cca_port");  // not a switch port: no credits, so never a victim
  no_injector injector;
  auto cp = cp_policies::instance().make("cca_port.prio2.cp", "ib-cca", port, 2, injector);
  ASSERT_TRUE(cp);
  auto& params = param_registry::instance();
  params.set("cca_port.prio2.cca.threshold", "4000B");
  params.set("cca_port.prio2.cca.hysteresis", "1000B");  // congested from 4000 B until below 3000 B
  params.set("cca_port.prio2.cca.marking_rate", "1");    // every second eligible frame
  params.set("cca_port.prio2.cca.packet_size", "256B");
  packet_header big, small;
  big.size = 1000;
  small.size = 200;
  auto leave = [&](packet_header h, uint64_t queue_after) {
    cp->on_dequeue(h, queue_view{0, 2, queue_after, 1, 0});
    return (h.flags & frame_flags::fecn) != 0;
  };
  packet_header in = big;
  EXPECT_FALSE(leave(big, 3500));                    // never reached the threshold
  cp->on_enqueue(in, queue_view{0, 2, 4000, 4, 0});  // congested now
  EXPECT_FALSE(leave(big, 3500));                    // eligible #1: left unmarked (marking rate 1)
  EXPECT_TRUE(leave(big, 3200));                     // eligible #2: FECN
  EXPECT_FALSE(leave(small, 3100));                  // 200 B < 256 B: not eligible, not counted
  EXPECT_FALSE(leave(big, 3100));                    // eligible #3: unmarked
  EXPECT_FALSE(leave(big, 2999));                    // below 3000 B: no longer congested
  EXPECT_FALSE(leave(big, 3500));                    // and not again before 4000 B
}
