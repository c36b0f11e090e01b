// DCQCN's rules that published versions disagree on (docs/models/dcqcn.md, "Fidelity"), each
// as a single step of the reaction point's state machine, and the profiles' values. Every
// expectation is worked out by hand (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include "models/cc/ack_coalescing.h"
#include "models/cc/dcqcn/dcqcn_profiles.h"
#include "models/cc/dcqcn/dcqcn_rp.h"

using namespace sluice;

namespace {
// The paper's rules and parameters at 40 Gb/s (dcqcn_profile "paper").
dcqcn_rp_config paper() { return dcqcn_paper.rp_config(40e9); }
}  // namespace

TEST(DcqcnRules, ClampTargetRateOnEveryCutIsThePapers) {
  dcqcn_rp_config c = paper();  // clamp_target true
  dcqcn_rp_state rp(40e9, 1.0);
  rp.on_cnp(c);  // rt <- 40G, rc 20G
  rp.on_cnp(c);  // rt <- 20G, rc 10G
  EXPECT_DOUBLE_EQ(rp.rt(), 20e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 10e9);
}

TEST(DcqcnRules, WithoutClampTheTargetStays) {
  dcqcn_rp_config c = paper();
  c.clamp_target = false;
  c.clamp_after_time_inc = false;
  dcqcn_rp_state rp(40e9, 1.0);
  rp.on_cnp(c);         // rt stays 40G, rc 20G
  rp.on_rate_timer(c);  // fast recovery: rc = (40 + 20) / 2 = 30G
  rp.on_cnp(c);         // rt still 40G even after a timer increase; rc = 15G
  EXPECT_DOUBLE_EQ(rp.rt(), 40e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 15e9);
  rp.on_rate_timer(c);  // the first fast-recovery step jumps halfway back: (40 + 15) / 2 = 27.5G
  EXPECT_DOUBLE_EQ(rp.rc(), 27.5e9);
}

TEST(DcqcnRules, ClampAfterTimeIncreaseNeedsATimerEventSinceTheLastCut) {
  dcqcn_rp_config c = paper();
  c.clamp_target = false;
  c.clamp_after_time_inc = true;
  c.byte_counter = 1000;
  dcqcn_rp_state rp(40e9, 1.0);
  rp.on_cnp(c);  // no timer event yet: rt stays 40G; rc 20G
  EXPECT_DOUBLE_EQ(rp.rt(), 40e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 20e9);
  rp.on_rate_timer(c);  // rc = 30G
  rp.on_cnp(c);         // a timer event came: rt <- 30G; rc = 15G
  EXPECT_DOUBLE_EQ(rp.rt(), 30e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 15e9);
  EXPECT_EQ(rp.on_bytes(c, 1000), 1u);  // a byte-counter increase only: rc = (30 + 15) / 2 = 22.5G
  rp.on_cnp(c);                         // not a timer increase: rt stays 30G; rc = 11.25G
  EXPECT_DOUBLE_EQ(rp.rt(), 30e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 11.25e9);
}

namespace {
// F 1, byte counter off, R_AI 10 Mb/s, R_HAI 100 Mb/s; a flow cut from 10G: rt 10G, rc 5G.
dcqcn_rp_config one_step() {
  dcqcn_rp_config c = paper();
  c.fast_recovery = 1;
  c.byte_counter = 0;
  c.rai = 10e6;
  c.rhai = 100e6;
  return c;
}
}  // namespace

TEST(DcqcnRules, HyperIncreaseFromTheTimerAloneAfterOneAdditiveStep) {
  dcqcn_rp_config c = one_step();
  c.hyper = dcqcn_hyper_rule::timer;
  dcqcn_rp_state rp(10e9, 1.0);
  rp.on_cnp(c);
  rp.on_rate_timer(c);  // t 1 <= F: fast recovery, rc = 7.5G
  EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::fast_recovery);
  EXPECT_DOUBLE_EQ(rp.rc(), 7.5e9);
  rp.on_rate_timer(c);  // t 2 = F + 1: additive, rt 10.01G, rc (10.01 + 7.5) / 2 = 8.755G
  EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::additive);
  EXPECT_DOUBLE_EQ(rp.rt(), 10.01e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 8.755e9);
  rp.on_rate_timer(c);  // t 3: hyper, stage-scaled step (3 - 1 - 1) x 100M: rt 10.11G, rc 9.4325G
  EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::hyper);
  EXPECT_DOUBLE_EQ(rp.rt(), 10.11e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 9.4325e9);
  rp.on_rate_timer(c);  // t 4: step 2 x 100M: rt 10.31G, rc (10.31 + 9.4325) / 2 = 9.87125G
  EXPECT_DOUBLE_EQ(rp.rt(), 10.31e9);
  EXPECT_DOUBLE_EQ(rp.rc(), 9.87125e9);

  c.hyper_step_fixed = true;  // the same with fixed steps: t 3 rt 10.11G, t 4 rt 10.21G
  dcqcn_rp_state fixed(10e9, 1.0);
  fixed.on_cnp(c);
  for (int i = 0; i < 3; ++i) fixed.on_rate_timer(c);
  EXPECT_DOUBLE_EQ(fixed.rt(), 10.11e9);
  fixed.on_rate_timer(c);
  EXPECT_DOUBLE_EQ(fixed.rt(), 10.21e9);
  EXPECT_DOUBLE_EQ(fixed.rc(), (10.21e9 + 9.4325e9) / 2);
}

TEST(DcqcnRules, BothCountersNeverHyperWithTheByteCounterOff) {
  const dcqcn_rp_config c = one_step();  // both-counters (paper)
  dcqcn_rp_state rp(10e9, 1.0);
  rp.on_cnp(c);
  rp.on_rate_timer(c);  // fast recovery
  for (int i = 1; i <= 10; ++i) {
    rp.on_rate_timer(c);  // byte stage 0 <= F forever: additive, +10M each
    EXPECT_EQ(rp.last_stage(), dcqcn_rp_state::stage::additive);
    EXPECT_DOUBLE_EQ(rp.rt(), 10e9 + i * 10e6);
  }
}

TEST(DcqcnRules, AlphaPerWindowRisesOnceAWindowWithACnp) {
  dcqcn_rp_config c = paper();
  c.alpha_update = dcqcn_alpha_rule::per_window;
  dcqcn_rp_state rp(40e9, 0.5);
  rp.note_cnp(c);
  EXPECT_TRUE(rp.cnp_in_window());
  rp.cut(c);  // rc = 40G x (1 - 0.25) = 30G; alpha unchanged by the cut
  EXPECT_DOUBLE_EQ(rp.rc(), 30e9);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.5);
  rp.note_cnp(c);        // two CNPs in one window count once
  rp.on_alpha_timer(c);  // 0.5 x 255/256 + 1/256 = 128.5/256 = 0.501953125
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.501953125);
  EXPECT_FALSE(rp.cnp_in_window());
  rp.on_alpha_timer(c);  // no CNP: 0.501953125 x 255/256 = 0.49999237060546875
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.49999237060546875);
  rp.note_cnp(c);
  rp.on_alpha_timer(c, 3);  // three windows at once: the flag counts in the first
  EXPECT_DOUBLE_EQ(rp.alpha(), (0.49999237060546875 * 255 / 256 + 1.0 / 256) * (255.0 / 256) * (255.0 / 256));
}

TEST(DcqcnRules, PerCnpAlphaCutsBeforeOrAfterItsUpdate) {
  dcqcn_rp_config c = paper();  // per-cnp, before (paper): rc = 40G x (1 - 0.5/2) = 30G, then alpha 0.501953125
  dcqcn_rp_state before(40e9, 0.5);
  before.on_cnp(c);
  EXPECT_DOUBLE_EQ(before.rc(), 30e9);
  EXPECT_DOUBLE_EQ(before.alpha(), 0.501953125);
  c.cut_after_alpha_update = true;  // alpha 0.501953125 first: rc = 40G x (1 - 0.2509765625) = 29.9609375G
  dcqcn_rp_state after(40e9, 0.5);
  after.on_cnp(c);
  EXPECT_DOUBLE_EQ(after.rc(), 29.9609375e9);
  EXPECT_DOUBLE_EQ(after.alpha(), 0.501953125);
}

TEST(DcqcnProfiles, PaperIsTheDefaultConfigAndTheOthersAsPublished) {
  // The paper's profile as its configuration at 40 Gb/s (SIGCOMM'15; R_HAI and the minimum rate
  // from the authors' ns-3 configuration), and the declared defaults of rp.* (dcqcn_rp.cpp).
  const dcqcn_rp_config d = paper();
  const dcqcn_profile& p = *dcqcn_profile_named("paper");
  EXPECT_EQ(d.g, 1.0 / 256);
  EXPECT_EQ(d.byte_counter, 10'000'000u);
  EXPECT_EQ(d.fast_recovery, 5u);
  EXPECT_EQ(d.rai, 40e6);
  EXPECT_EQ(d.rhai, 200e6);
  EXPECT_EQ(d.min_rate, 100e6);
  EXPECT_EQ(d.line_rate, 40e9);
  EXPECT_TRUE(d.clamp_target);
  EXPECT_FALSE(d.clamp_after_time_inc);
  EXPECT_EQ(d.hyper, dcqcn_hyper_rule::both_counters);
  EXPECT_FALSE(d.hyper_step_fixed);
  EXPECT_EQ(d.alpha_update, dcqcn_alpha_rule::per_cnp);
  EXPECT_FALSE(d.cut_after_alpha_update);
  EXPECT_EQ(p.alpha_init, 1.0);
  EXPECT_EQ(p.alpha_timer_ps, 55 * dcqcn_us);
  EXPECT_EQ(p.timer_ps, 55 * dcqcn_us);
  EXPECT_EQ(p.rate_decrease_interval_ps, 0u);
  EXPECT_EQ(p.cnp_interval_ps, 50 * dcqcn_us);
  EXPECT_FALSE(p.transport_acks);

  const dcqcn_profile& x = *dcqcn_profile_named("connectx");
  EXPECT_FALSE(x.clamp_target);            // clamp_tgt_rate 0
  EXPECT_TRUE(x.clamp_after_time_inc);     // clamp_tgt_rate_after_time_inc 1
  EXPECT_EQ(x.g, 5.0 / 1024);              // dce_tcp_g 1019: alpha x 1019/1024 + 5/1024
  EXPECT_EQ(x.alpha_init, 1023.0 / 1024);  // initial_alpha_value 1023
  EXPECT_EQ(x.alpha_update, dcqcn_alpha_rule::per_window);
  EXPECT_EQ(x.alpha_timer_ps, 1 * dcqcn_us);             // dce_tcp_rtt 1 us
  EXPECT_EQ(x.timer_ps, 300 * dcqcn_us);                 // rpg_time_reset
  EXPECT_EQ(x.byte_counter, 32767u * 64);                // rpg_byte_reset, 64-byte units
  EXPECT_EQ(x.fast_recovery, 1u);                        // rpg_threshold
  EXPECT_EQ(x.rai_at(100e9), 5e6);                       // rpg_ai_rate, whatever the line rate
  EXPECT_EQ(x.rhai_at(100e9), 50e6);                     // rpg_hai_rate
  EXPECT_EQ(x.min_rate, 1e6);                            // rpg_min_rate
  EXPECT_EQ(x.rate_decrease_interval_ps, 4 * dcqcn_us);  // rate_reduce_monitor_period
  EXPECT_EQ(x.cnp_interval_ps, 4 * dcqcn_us);            // min_time_between_cnps
  EXPECT_EQ(x.hyper, dcqcn_hyper_rule::both_counters);
  EXPECT_TRUE(x.hyper_step_fixed);

  const dcqcn_profile& h = *dcqcn_profile_named("hpcc-sim");
  EXPECT_FALSE(h.clamp_target);         // CLAMP_TARGET_RATE 0
  EXPECT_TRUE(h.clamp_after_time_inc);  // its code: the target moves only if rpTimeStage > 0
  EXPECT_EQ(h.hyper, dcqcn_hyper_rule::timer);
  EXPECT_TRUE(h.hyper_step_fixed);
  EXPECT_EQ(h.alpha_update, dcqcn_alpha_rule::per_window);
  EXPECT_EQ(h.g, 1.0 / 256);                             // EWMA_GAIN
  EXPECT_EQ(h.alpha_timer_ps, 1 * dcqcn_us);             // ALPHA_RESUME_INTERVAL
  EXPECT_EQ(h.rate_decrease_interval_ps, 4 * dcqcn_us);  // RATE_DECREASE_INTERVAL
  EXPECT_EQ(h.timer_ps, 300 * dcqcn_us);                 // RP_TIMER
  EXPECT_EQ(h.fast_recovery, 1u);                        // FAST_RECOVERY_TIMES
  EXPECT_EQ(h.byte_counter, 0u);                         // none
  EXPECT_DOUBLE_EQ(h.rai_at(40e9), 8e6);                 // RATE_AI 5 Mb/s x 40/25
  EXPECT_DOUBLE_EQ(h.rhai_at(40e9), 80e6);               // RATE_HAI 50 Mb/s x 40/25
  EXPECT_DOUBLE_EQ(h.rai_at(100e9), 20e6);
  EXPECT_EQ(h.min_rate, 1e9);        // MIN_RATE 1000 Mb/s
  EXPECT_EQ(h.cnp_interval_ps, 0u);  // the CE echo rides on every ACK
  EXPECT_TRUE(h.transport_acks);     // L2_ACK_INTERVAL 1
  EXPECT_EQ(dcqcn_profile_named("firmware"), nullptr);
}

TEST(TransportAcks, CoalesceByFramesBytesAndFlowEnd) {
  ack_coalescer a;
  const ack_rule every_frame{1, 0}, every_third{3, 0}, segments{0, 16000};
  EXPECT_TRUE(a.on_data(0, 0, 1000, 0, every_frame));
  EXPECT_FALSE(a.on_data(1, 0, 1000, 0, every_third));
  EXPECT_FALSE(a.on_data(1, 1000, 1000, 0, every_third));
  EXPECT_EQ(a.unacked(1), 2u);
  EXPECT_TRUE(a.on_data(1, 2000, 1000, 0, every_third));  // the third frame
  EXPECT_EQ(a.unacked(1), 0u);
  EXPECT_FALSE(a.on_data(2, 0, 1000, 0, segments));
  EXPECT_TRUE(a.on_data(2, 15500, 1000, 0, segments));  // crosses 16000
  EXPECT_FALSE(a.on_data(2, 16500, 1000, 0, segments));
  EXPECT_TRUE(a.on_data(3, 1000, 1000, 2000, segments));   // the last frame of a 2000-byte flow
  EXPECT_FALSE(a.on_data(4, 0, 1000, 0, ack_rule{0, 0}));  // neither: only a timer or the end
  a.acked(4);
  EXPECT_EQ(a.unacked(4), 0u);
}
