// A link serializes at its rate, propagates with its delay, and pipelines many frames.
#include <gtest/gtest.h>

#include <random>

#include "tests/support/harness.h"
#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
std::string two_nics(const std::string& size, const std::string& extra = "") {
  return test::two_nics("{kind: finite, src: a, dst: b, size: " + size + "}",
                        "params: {\"a.mtu\": 1500B}\nrun: {until: 20us}\n" + extra);
}

// Runs of frames of one size (some of 0 bytes), back to back or after random gaps; records each
// frame's start and its serialization at the rate its wire has then.
struct runs_source : frame_source_if {
  std::mt19937_64 rng{23};
  const wire_if* wire = nullptr;
  uint32_t size = 0;
  int run_left = 0;
  uint64_t ready_ps = 0;
  std::vector<uint64_t> starts, ser_ps;
  std::vector<uint32_t> sizes;
  tlm::tlm_generic_payload* next_frame(uint64_t now, uint64_t& retry_ps) override {
    if (now < ready_ps) {
      retry_ps = std::min(retry_ps, ready_ps);
      return nullptr;
    }
    if (!run_left) {
      run_left = 1 + static_cast<int>(rng() % 12);
      size = rng() % 8 == 0 ? 0 : static_cast<uint32_t>(64 + rng() % 1500);
    }
    --run_left;
    tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
    header(*p).size = size;
    starts.push_back(now);
    sizes.push_back(size);
    ser_ps.push_back(wire->current_rate().serialization_ps(size));
    ready_ps = now + (rng() % 4 == 0 ? rng() % 200000 : 0);
    return p;
  }
  uint64_t next_ready_ps(uint64_t now) const override { return std::max(ready_ps, now); }
};
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

TEST(LinkTiming, CountersAddUpEveryFrameAcrossChangesOfSizeAndRate) {
  // A direction counts its bytes and busy time at each change of frame size or rate, not at each
  // frame: read at random times, between rate changes, they must be the sums over its frames.
  test::mac_pair bench(data_rate{40e9}, sc_time(500, SC_NS));
  runs_source src;
  src.wire = &bench.wire;
  bench.a.attach(&src, &bench.a_sink);
  struct reading {
    uint64_t at_ps, frames, bytes, busy_ps;
  };
  std::vector<reading> readings;
  test::step_driver driver("driver");
  std::mt19937_64 rng(7);
  const link_channel& ab = bench.wire.ab;
  for (uint64_t t = 0; t < 400'000'000;) {
    t += 1 + rng() % 2'000'000;
    if (rng() % 3 == 0) {
      const data_rate r{1e9 * static_cast<double>(1 + rng() % 100)};
      driver.at(from_ps(t), [&bench, r] { bench.wire.set_rate(r); });
    } else {
      driver.at(from_ps(t), [&readings, &ab] {
        const uint64_t now = now_ps();
        readings.push_back({now, ab.frames(), ab.bytes(), to_ps(ab.busy_time(from_ps(now)))});
      });
    }
  }
  sluice::start(sc_time(401, sc_core::SC_US));

  ASSERT_GT(src.starts.size(), 1000u);
  ASSERT_GT(readings.size(), 100u);
  std::size_t n = 0;
  uint64_t bytes = 0, busy = 0;
  for (const reading& r : readings) {
    for (; n < r.frames; ++n) {
      bytes += src.sizes[n];
      busy += src.ser_ps[n];
    }
    const uint64_t end = n ? src.starts[n - 1] + src.ser_ps[n - 1] : 0;  // the last frame's, maybe ahead
    EXPECT_EQ(r.bytes, bytes) << "at " << r.at_ps;
    EXPECT_EQ(r.busy_ps, busy - (end > r.at_ps ? end - r.at_ps : 0)) << "at " << r.at_ps;
  }
}
