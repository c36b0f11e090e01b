// TIMELY's profiles (docs/models/timely.md, "Fidelity"): timely.profile = hpcc-sim at the
// senders sets the HPCC ns-3 simulator's values, the rates scaled to the line rate (checked at
// two), np.profile = hpcc-sim at the receivers its ACKs (every data frame, on the highest class);
// explicit settings win, and the paper profile keeps today's defaults.
#include <gtest/gtest.h>

#include "models/core/params.h"
#include "tests/support/harness.h"

using namespace sluice;
using test::param_value;

namespace {
// Two TIMELY flows over a dumbbell at `gbps`.
std::string dumbbell(int gbps) {
  const std::string rate = std::to_string(gbps) + "Gbps";
  return "platform: {kind: dumbbell, senders: 2, receivers: 2, link_rate: " + rate + ", bottleneck_rate: " + rate +
         ", link_delay: 1us}\ntraffic:\n"
         "  - {kind: constant, src: h0, dst: r0, rate: " +
         rate + ", priority: 3, cc: timely}\n  - {kind: constant, src: h1, dst: r1, rate: " + rate +
         ", priority: 3, cc: timely}\nrun: {until: 10us}\n";
}

const std::vector<std::pair<std::string, std::string>> hpcc_sim = {{"h*.timely.profile", "hpcc-sim"},
                                                                   {"r*.np.profile", "hpcc-sim"},
                                                                   {"h1.timely.delta", "7Mbps"},
                                                                   {"r1.ack.priority", "5"}};

// The values every line rate shares (rdma-hw.cc's TIMELY attributes, run.py's MIN_RATE and ACKs).
void expect_common_hpcc_sim_values() {
  EXPECT_EQ(param_value("h0.timely.t_low"), "50us");
  EXPECT_EQ(param_value("h0.timely.t_high"), "500us");
  EXPECT_EQ(param_value("h0.timely.min_rtt"), "20us");
  EXPECT_EQ(param_value("h0.timely.alpha"), "0.875");
  EXPECT_EQ(param_value("h0.timely.beta"), "0.8");
  EXPECT_EQ(param_value("h0.timely.hai_threshold"), "5");
  EXPECT_EQ(param_value("r0.ack.enable"), "true");
  EXPECT_EQ(param_value("r0.ack.every_frames"), "1");
  EXPECT_EQ(param_value("r0.ack.every_bytes"), "0B");
  EXPECT_EQ(param_value("r0.ack.priority"), "high");
  EXPECT_EQ(param_value("h1.timely.delta"), "7Mbps");  // set explicitly: the profile does not move it
  EXPECT_EQ(param_value("r1.ack.priority"), "5");
  EXPECT_EQ(param_value("r1.ack.every_frames"), "1");
}
}  // namespace

TEST(TimelyProfile, HpccSimValuesScaleWithTheLineRateAt10G) {
  auto sim = test::make_sim(dumbbell(10), hpcc_sim);
  expect_common_hpcc_sim_values();
  EXPECT_EQ(param_value("h0.timely.delta"), "10Mbps");  // 10 Mb/s per 10 Gb/s
  EXPECT_EQ(param_value("h0.timely.hai_step"), "50Mbps");
  EXPECT_EQ(param_value("h0.timely.min_rate"), "0.1");  // 1 Gb/s of 10
}

TEST(TimelyProfile, HpccSimValuesScaleWithTheLineRateAt40G) {
  auto sim = test::make_sim(dumbbell(40), hpcc_sim);
  EXPECT_TRUE(sim->fabric_model().warnings().empty());  // both ends hpcc-sim
  expect_common_hpcc_sim_values();
  EXPECT_EQ(param_value("h0.timely.delta"), "40Mbps");
  EXPECT_EQ(param_value("h0.timely.hai_step"), "200Mbps");
  EXPECT_EQ(param_value("h0.timely.min_rate"), "0.025");  // 1 Gb/s of 40
}

TEST(TimelyProfile, PaperKeepsTheDefaultsAndOneAckPerSegmentOnTheDataClass) {
  auto sim = test::make_sim(dumbbell(40));
  EXPECT_EQ(param_value("h0.timely.profile"), "paper");
  EXPECT_EQ(param_value("r0.np.profile"), "paper");
  EXPECT_EQ(param_value("h0.timely.delta"), "10Mbps");  // not scaled
  EXPECT_EQ(param_value("h0.timely.min_rate"), "0.01");
  EXPECT_EQ(param_value("r0.ack.every_frames"), "0");
  EXPECT_EQ(param_value("r0.ack.every_bytes"), param_value("r0.np.ack_segment"));
  EXPECT_EQ(param_value("r0.ack.priority"), "data");
}

TEST(TimelyProfile, ASenderProfileTheReceiverDoesNotShareIsAWarning) {
  // The receiver cannot see the sender's profile: timely.profile = hpcc-sim alone would time the
  // paper's segment ACKs. One warning for the two flows.
  auto sim = test::make_sim(dumbbell(40), {{"h*.timely.profile", "hpcc-sim"}});
  EXPECT_EQ(sim->fabric_model().warnings(),
            std::vector<std::string>{"h0.timely.profile is 'hpcc-sim' but r0.np.profile is 'paper': the flow's two "
                                     "ends follow different profiles; set the receivers' np.profile as the senders' "
                                     "(1 more flow)"});
}

namespace {
// a -> sw0 -> b, 7 frames (10 000 B in 1500-B frames), the receiver's ACKs counted per class at
// sw0's port toward a.
nlohmann::json seven_frames(std::vector<std::pair<std::string, std::string>> sets) {
  auto sim = test::make_sim(test::one_switch("10000B", "run: {until: 100us}\n"), std::move(sets));
  sim->run();
  return sim->summary();
}
std::string toward_a(int cls) { return "sw0.port0.prio" + std::to_string(cls) + ".frames_out"; }
}  // namespace

TEST(TimelyProfile, HpccSimReceiverAcksEveryFrameOnTheHighestClass) {
  const nlohmann::json s = seven_frames(
      {{"a.rp", "timely"}, {"b.np", "timely"}, {"a.timely.profile", "hpcc-sim"}, {"b.np.profile", "hpcc-sim"}});
  EXPECT_EQ(test::counter(s, "b.ack_sent"), 7);
  EXPECT_EQ(test::counter(s, "a.ack_received"), 7);
  EXPECT_EQ(test::counter(s, toward_a(7)), 7);  // class 7 of the fabric's 8
  EXPECT_EQ(test::counter(s, toward_a(3)), 0);
}

TEST(TimelyProfile, PaperReceiverAcksPerSegmentOnTheDataClass) {
  // 10 000 B is under one 16 000-B segment: one ACK, for the flow's last frame.
  const nlohmann::json s = seven_frames({{"a.rp", "timely"}, {"b.np", "timely"}});
  EXPECT_EQ(test::counter(s, "b.ack_sent"), 1);
  EXPECT_EQ(test::counter(s, toward_a(3)), 1);
  EXPECT_EQ(test::counter(s, toward_a(7)), 0);
}

TEST(DcqcnProfile, HpccSimReceiverAcksEveryFrameOnTheHighestClass) {
  const nlohmann::json s = seven_frames({{"a.rp", "dcqcn"}, {"b.np", "dcqcn"}, {"b.np.profile", "hpcc-sim"}});
  EXPECT_EQ(test::counter(s, "b.ack_sent"), 7);
  EXPECT_EQ(test::counter(s, toward_a(7)), 7);
  EXPECT_EQ(test::counter(s, toward_a(3)), 0);
}
