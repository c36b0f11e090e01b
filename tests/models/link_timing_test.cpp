// A link serializes at its rate, propagates with its delay, and pipelines many frames.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
std::string two_nics(const std::string& size, const std::string& extra = "") {
  return test::two_nics("{kind: finite, src: a, dst: b, size: " + size + "}",
                        "params: {\"a.mtu\": 1500B}\nrun: {until: 20us}\n" + extra);
}
}  // namespace

TEST(LinkTiming, OneFrameArrivesAfterSerializationPlusPropagation) {
  auto sim = test::make_sim(two_nics("1500B"));
  sim->run();
  const flow& f = sim->fabric_model().flows[0];
  ASSERT_TRUE(f.stats.completed());
  // 1500 B x 8 / 40 Gb/s = 300 ns, + 1 us propagation.
  EXPECT_EQ(from_ps(f.stats.completed_ps), sc_time(1300, SC_NS));
  EXPECT_EQ(sim->fabric_model().links[0].model->ab.frames(), 1u);
}

TEST(LinkTiming, FramesPipelineOnTheWire) {
  // Ten back-to-back frames: the last leaves at 10 x 300 ns and lands 1 us later; a link that
  // held one frame at a time would need 10 x 1.3 us.
  auto sim = test::make_sim(two_nics("15000B"));
  sim->run();
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(4000, SC_NS));
}

TEST(LinkTiming, RateChangeAppliesToFramesThatStartAfterIt) {
  // Frames 0-4 start at 0..1.2 us at 40 Gb/s; at 1.4 us the link drops to 20 Gb/s, so frames
  // 5-9 take 600 ns each from 1.5 us: the last ends at 4.5 us and lands at 5.5 us.
  auto sim = test::make_sim(two_nics("15000B", "events: [{at: 1400ns, link: a-b, rate: 20Gbps}]\n"));
  sim->run();
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(5500, SC_NS));
}

TEST(LinkTiming, UtilizationCountsBusyTime) {
  auto sim = test::make_sim(two_nics("15000B"));
  sim->run();
  // 3 us busy out of 20 us.
  EXPECT_EQ(sim->fabric_model().links[0].model->ab.busy_time(sc_time(20, sc_core::SC_US)), sc_time(3000, SC_NS));
}

TEST(LinkTiming, ReceivingEndsAreNonBlockingOnly) {
  // A link channel and a MAC implement the protocol's forward path themselves; blocking
  // transport, DMI and debug access do not exist on a wire.
  auto sim = test::make_sim(two_nics("1500B"));
  sluice::link& l = *sim->fabric_model().links[0].model;
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
  sc_time t = sc_core::SC_ZERO_TIME;
  frame_receiver& channel = l.ab;
  EXPECT_THROW(channel.b_transport(*p, t), sc_core::sc_report);
  tlm::tlm_dmi dmi;
  EXPECT_FALSE(channel.get_direct_mem_ptr(*p, dmi));
  EXPECT_EQ(channel.transport_dbg(*p), 0u);
  p->release();
}
