// DCQCN's congestion, notification and reaction points as pure state machines: scripted queue
// depths, marks, CNPs, timer and byte events in; exact probabilities, decisions, rates and
// stages out. Every expectation is worked out by hand from the equations in
// docs/models/dcqcn.md (the arithmetic is in the comments), not copied from a run.
#include <gtest/gtest.h>

#include "models/cc/dcqcn/dcqcn_cp.h"
#include "models/cc/dcqcn/dcqcn_np.h"
#include "models/cc/dcqcn/dcqcn_profiles.h"
#include "models/cc/dcqcn/dcqcn_rp.h"
#include "models/core/random.h"

using namespace sluice;

TEST(DcqcnCp, RedProbabilityIsZeroThenLinearToPmaxThenOne) {
  const red_marking red{5000, 200000, 0.01};  // the paper's Kmin 5 KB, Kmax 200 KB, Pmax 1 %
  EXPECT_EQ(red.probability(0), 0.0);
  EXPECT_EQ(red.probability(5000), 0.0);             // at Kmin: not yet
  EXPECT_DOUBLE_EQ(red.probability(102500), 0.005);  // 0.01 x (102500 - 5000) / 195000 = 0.01 x 0.5
  EXPECT_DOUBLE_EQ(red.probability(44000), 0.002);   // 0.01 x 39000 / 195000 = 0.01 x 0.2
  EXPECT_DOUBLE_EQ(red.probability(200000), 0.01);   // at Kmax: Pmax
  EXPECT_EQ(red.probability(200001), 1.0);           // above Kmax: every frame
  EXPECT_TRUE(red.mark(102500, 0.0049));             // u < 0.005
  EXPECT_FALSE(red.mark(102500, 0.005));             // u = p: not marked
  EXPECT_FALSE(red.mark(4000, 0.0));                 // p = 0 never marks, even for u = 0
  EXPECT_TRUE(red.mark(300000, 0.999999));           // p = 1 always marks
  const red_marking step{1000, 1000, 0.5};           // Kmin = Kmax: a step at K
  EXPECT_EQ(step.probability(1000), 0.0);
  EXPECT_EQ(step.probability(1001), 1.0);
}

TEST(DcqcnCp, StreamsAreDeterministicAndDifferByName) {
  random_stream a(derive_seed(1, "sw0.port4.prio3.cp")), b(derive_seed(1, "sw0.port4.prio3.cp")),
      c(derive_seed(1, "sw0.port5.prio3.cp"));
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const double u = a.uniform();
    EXPECT_EQ(u, b.uniform());
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    differs |= u != c.uniform();
  }
  EXPECT_TRUE(differs);
}

TEST(DcqcnNp, OneCnpAtOnceThenAtMostOnePerFlowPerInterval) {
  const uint64_t us = 1'000'000, tau = 50 * us;  // ps
  cnp_pacer np(2);
  EXPECT_FALSE(np.on_data(0, false, 0, tau));           // unmarked: nothing
  EXPECT_TRUE(np.on_data(0, true, 1 * us, tau));        // first CE of flow 0: a CNP at once
  EXPECT_FALSE(np.on_data(0, true, 2 * us, tau));       // 1 us later: within 50 us
  EXPECT_FALSE(np.on_data(0, true, 51 * us - 1, tau));  // 50 us - 1 ps after the CNP: still within
  EXPECT_TRUE(np.on_data(1, true, 2 * us, tau));        // flow 1 has its own interval
  EXPECT_TRUE(np.on_data(0, true, 51 * us, tau));       // exactly 50 us after the CNP at 1 us
  EXPECT_FALSE(np.on_data(0, false, 200 * us, tau));    // unmarked frames never send
  EXPECT_TRUE(np.on_data(0, true, 200 * us, tau));      // marked after a quiet spell: at once
  EXPECT_TRUE(np.on_data(7, true, 0, tau));             // a flow id beyond the table grows it
  EXPECT_TRUE(np.on_data(1, true, 2 * us, 0));          // interval 0: a CNP per marked frame
  EXPECT_TRUE(np.on_data(1, true, 2 * us, 0));
}

namespace {
// The paper's profile at 40 Gb/s: g 1/256, B 10 MB, F 5, R_AI 40M, R_HAI 200M, min 100M.
dcqcn_rp_config paper() { return dcqcn_paper.rp_config(40e9); }
}  // namespace

TEST(DcqcnRp, CnpCutsByHalfAlphaAndRaisesAlpha) {
  const dcqcn_rp_config c = paper();
  dcqcn_rp_state rp(40e9, 1.0);
  rp.on_cnp(c);  // rt = 40G; rc = 40G x (1 - 1/2) = 20G; alpha = (255/256) x 1 + 1/256 = 1
  EXPECT_DOUBLE_EQ(rp.rt(), 40e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 20e9);
  EXPECT_DOUBLE_EQ(rp.alpha(), 1.0);
  rp.on_cnp(c);  // rt = 20G; rc = 10G; alpha = 1
  EXPECT_DOUBLE_EQ(rp.rt(), 20e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 10e9);
  rp.on_alpha_timer(c);  // alpha = 255/256 = 0.99609375
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.99609375);
  rp.on_cnp(c);  // rt = 10G; rc = 10G x (1 - 0.99609375 / 2) = 10G x 0.501953125 = 5.01953125G
  EXPECT_DOUBLE_EQ(rp.rt(), 10e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 5.01953125e9);
  // alpha = (255/256)(255/256) + 1/256 = (65025 + 256) / 65536 = 65281 / 65536
  EXPECT_DOUBLE_EQ(rp.alpha(), 65281.0 / 65536);
  rp.on_alpha_timer(c, 3);  // three missed periods at once: alpha x (255/256)^3
  EXPECT_DOUBLE_EQ(rp.alpha(), 65281.0 / 65536 * (255.0 / 256) * (255.0 / 256) * (255.0 / 256));
}

TEST(DcqcnRp, FastRecoveryThenAdditiveThenHyperIncrease) {
  const dcqcn_rp_config c = paper();
  dcqcn_rp_state rp(40e9, 1.0);
  rp.on_cnp(c);
  rp.on_cnp(c);
  rp.on_alpha_timer(c);
  rp.on_cnp(c);  // as above: rt 10G, rc 5.01953125G
  // Five timer events: fast recovery, rc <- (rt + rc) / 2 with rt = 10G fixed:
  // 7.509765625G, 8.7548828125G, 9.37744140625G, 9.688720703125G, 9.8443603515625G
  const double fr[] = {7.509765625e9, 8.7548828125e9, 9.37744140625e9, 9.688720703125e9, 9.8443603515625e9};
  for (double want : fr) {
    rp.on_rate_timer(c);
    EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::fast_recovery);
    EXPECT_DOUBLE_EQ(rp.rt(), 10e9);
    EXPECT_DOUBLE_EQ(rp.rc(), want);
  }
  // Sixth timer event: timer stage 6 > F, byte stage 0 <= F: additive.
  // rt = 10G + 40M = 10.04G; rc = (10.04G + 9.8443603515625G) / 2 = 9.94218017578125G
  rp.on_rate_timer(c);
  EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::additive);
  EXPECT_DOUBLE_EQ(rp.rt(), 10.04e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 9.94218017578125e9);
  // Byte counter: 10 MB - 1 byte is no event; one more byte is (byte stage 1; timer stage 6).
  EXPECT_EQ(rp.on_bytes(c, 9'999'999), 0u);
  EXPECT_EQ(rp.bytes(), 9'999'999u);
  EXPECT_EQ(rp.on_bytes(c, 1), 1u);
  EXPECT_EQ(rp.bytes(), 0u);
  // additive: rt = 10.08G; rc = (10.08G + 9.94218017578125G) / 2 = 10.011090087890625G
  EXPECT_DOUBLE_EQ(rp.rt(), 10.08e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 10.011090087890625e9);
  // 50 MB at once: byte events 2..6. Stages 2-5 additive (rt 10.12, 10.16, 10.20, 10.24 G);
  // stage 6 with timer stage 6: both past F, hyper: rt = 10.24G + (6 - 5) x 200M = 10.44G.
  // rc: 10.065545043945312G, 10.112772521972656G, 10.156386260986328G, 10.198193130493164G,
  // then (10.44G + 10.198193130493164G) / 2 = 10.319096565246582G
  EXPECT_EQ(rp.on_bytes(c, 50'000'000), 5u);
  EXPECT_EQ(rp.byte_stage(), 6u);
  EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::hyper);
  EXPECT_DOUBLE_EQ(rp.rt(), 10.44e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 10.319096565246582e9);
  // Timer stage 7, byte stage 6: min 6, hyper step (6 - 5) x 200M: rt = 10.64G;
  // rc = (10.64G + 10.319096565246582G) / 2 = 10.479548282623291G
  rp.on_rate_timer(c);
  EXPECT_DOUBLE_EQ(rp.rt(), 10.64e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 10.479548282623291e9);
  // A CNP resets both stages and the byte counter: the next event is fast recovery again.
  rp.on_bytes(c, 1000);
  rp.on_cnp(c);
  EXPECT_EQ(rp.timer_stage(), 0u);
  EXPECT_EQ(rp.byte_stage(), 0u);
  EXPECT_EQ(rp.bytes(), 0u);
  rp.on_rate_timer(c);
  EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::fast_recovery);
}

TEST(DcqcnRp, RatesStayBetweenTheMinimumAndTheLineRate) {
  const dcqcn_rp_config c = paper();
  dcqcn_rp_state rp(150e6, 1.0);  // a flow already at 150 Mb/s
  rp.on_cnp(c);                   // 150M x 1/2 = 75M, below the 100M floor: rc = 100M
  EXPECT_DOUBLE_EQ(rp.rc(), 100e6);
  dcqcn_rp_state top(40e9, 1.0);
  top.on_cnp(c);                                     // rt 40G, rc 20G
  for (int i = 0; i < 6; ++i) top.on_rate_timer(c);  // the sixth is additive: 40G + 40M, capped at 40G
  EXPECT_DOUBLE_EQ(top.rt(), 40e9);
  EXPECT_LE(top.rc(), 40e9);
  dcqcn_rp_config off = c;
  off.byte_counter = 0;  // byte counter off: never an event
  EXPECT_EQ(top.on_bytes(off, 1ull << 40), 0u);
}
