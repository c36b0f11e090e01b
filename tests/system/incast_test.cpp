// Incast: 16 x 10 Gb/s into one 40 Gb/s port (congestion factor 4).
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
nlohmann::json run_incast(std::vector<std::pair<std::string, std::string>> sets) {
  return test::run_scenario("incast.yaml", std::move(sets));
}
using test::utilization;
}  // namespace

TEST(Incast, PfcIsLosslessPausesSendersAndKeepsTheBottleneckBusy) {
  nlohmann::json s = run_incast({});
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_GT(s["totals"]["pause_frames"].get<uint64_t>(), 0u);
  EXPECT_GE(utilization(s, "sw0->r0"), 0.99);
  // Every sender was paused by its switch port, and each gets its fair 40/16 = 2.5 Gb/s.
  for (int i = 0; i < 16; ++i) {
    std::string h = "h" + std::to_string(i);
    EXPECT_GT(test::find_port(s, h, "sw0", 3)["pause_received"].get<uint64_t>(), 0u) << h;
    EXPECT_NEAR(test::find_flow(s, h + "->r0")["throughput_bps"].get<double>(), 2.5e9, 0.1e9) << h;
  }
  EXPECT_TRUE(s["warnings"].empty());
  EXPECT_EQ(s["congestion_tree"]["max_ports_paused"], 16);  // every sender, nothing else
}

TEST(Incast, WithoutPfcTheSwitchDropsAndReportsIt) {
  nlohmann::json s = run_incast({{"sw0.prio*.lossless", "false"}});
  EXPECT_GT(s["totals"]["drops"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["totals"]["lossless_drops"], 0);
  EXPECT_EQ(s["totals"]["pause_frames"], 0);
  uint64_t per_port = 0;
  for (const auto& p : s["ports"]) per_port += p["drops"].get<uint64_t>();
  EXPECT_EQ(per_port, s["totals"]["drops"].get<uint64_t>());
}

TEST(Incast, TooLittleHeadroomDropsOnALosslessPriorityAndWarns) {
  // A static 2 KB XOFF with 1 KB of headroom cannot absorb the 2 us round trip at 10 Gb/s.
  nlohmann::json s =
      run_incast({{"sw0.mmu.threshold", "static"}, {"sw0.port*.pfc.xoff", "2KB"}, {"sw0.port*.pfc.headroom", "1KB"}});
  EXPECT_GT(s["totals"]["lossless_drops"].get<uint64_t>(), 0u);
  ASSERT_FALSE(s["warnings"].empty());
  EXPECT_NE(s["warnings"][0].get<std::string>().find("lossless"), std::string::npos);
}

TEST(Incast, DefaultHeadroomIsEnoughWithStaticThresholds) {
  nlohmann::json s = run_incast({{"sw0.mmu.threshold", "static"}, {"sw0.port*.pfc.xoff", "4KB"}});
  EXPECT_EQ(s["totals"]["drops"], 0);
  EXPECT_GE(utilization(s, "sw0->r0"), 0.99);
}

TEST(Incast, PauseIsRefreshedBeforeItExpiresWhileCongested) {
  // 1000 quanta at 40 Gb/s = 12.8 us of pause, refreshed every 6.4 us. A 200 KB resume
  // hysteresis keeps each paused episode at least 200 KB / 40 Gb/s = 40 us long, so every
  // episode carries several refreshes; without them the senders would run into the headroom.
  auto sim = test::make_sim(test::two_senders(3, 3, "run: {until: 2ms}\n"), {{"sw0.mmu.threshold", "static"},
                                                                             {"sw0.port*.pfc.xoff", "100KB"},
                                                                             {"sw0.port*.pfc.xon_offset", "200KB"},
                                                                             {"sw0.port*.pfc.quanta", "1000"}});
  sim->run();
  nlohmann::json s = sim->summary();
  EXPECT_EQ(s["totals"]["drops"], 0);
  for (const char* h : {"h0", "h1"}) {
    nlohmann::json p = test::find_port(s, h, "sw0", 3);
    uint64_t xoff = p["pause_received"].get<uint64_t>(), xon = p["resume_received"].get<uint64_t>();
    EXPECT_GT(xon, 0u) << h;
    EXPECT_GE(xoff, 4 * xon) << h << ": refreshes missing";
    // Two line-rate senders on one port: each is paused about half the time.
    EXPECT_NEAR(p["paused_time_ns"].get<double>() / 2e6, 0.5, 0.1) << h;
  }
}

TEST(Incast, ALosslessGroupWithoutHeadroomStillPausesItsSender) {
  // No headroom at all: frames beyond the static XOFF threshold are dropped (and counted), but
  // the first drop must still send XOFF, or the sender would never be told to stop.
  nlohmann::json s =
      run_incast({{"sw0.mmu.threshold", "static"}, {"sw0.port*.pfc.xoff", "10500B"}, {"sw0.port*.pfc.headroom", "0B"}});
  EXPECT_GT(s["totals"]["lossless_drops"].get<uint64_t>(), 0u);
  for (int i = 0; i < 16; ++i) {
    nlohmann::json p = test::find_port(s, "sw0", "h" + std::to_string(i), 3);
    if (p["drops"].get<uint64_t>() > 0) {
      EXPECT_GT(p["pause_sent"].get<uint64_t>(), 0u) << "h" << i;
    }
  }
}

TEST(Incast, CountersAgreeWithTheStructuredSummary) {
  nlohmann::json s = run_incast({});
  const nlohmann::json& c = s["counters"];
  nlohmann::json out = test::find_port(s, "sw0", "r0", 3);
  EXPECT_EQ(c["sw0.port16.prio3.frames_out"].get<double>(), out["frames_out"].get<double>());
  EXPECT_EQ(c["sw0.port16.prio3.queue_max_bytes"].get<double>(), out["max_queue_bytes"].get<double>());
  nlohmann::json h0 = test::find_port(s, "h0", "sw0", 3);
  EXPECT_EQ(c["h0.port0.prio3.pause_received"].get<double>(), h0["pause_received"].get<double>());
  EXPECT_DOUBLE_EQ(c["h0.port0.prio3.paused_time"].get<double>(), h0["paused_time_ns"].get<double>());
  // Conservation: what h0 sent on the wire is what crossed its link.
  EXPECT_EQ(c["h0.prio3.bytes_sent"].get<double>(), c["h0-sw0.ab.bytes"].get<double>());
  EXPECT_FALSE(c.contains("sw0.port16.prio5.frames_out"));  // zero counters are left out
}

TEST(Incast, StopWhenDoneEndsTheRunAtTheLastCompletion) {
  // 4 x 100 KB through one 40 Gb/s port: the port is busy from the first frame's arrival at
  // 200 ns + 1 us + 500 ns (pipeline) for 400 frames x 200 ns, and the last bit lands 1 us
  // later: 1.7 + 80 + 1 = 82.7 us, long before `until`.
  auto sim = test::make_sim(R"(
platform: {kind: incast, senders: 4}
traffic: [{kind: finite, src: "h*", dst: r0, size: 100KB, priority: 3}]
run: {until: 100ms, stop_when_done: true}
)");
  sim->run();
  nlohmann::json s = sim->summary();
  EXPECT_EQ(s["totals"]["sim_time_ns"], 82700.0);
  EXPECT_EQ(s["totals"]["flows_completed"], 4);
}

TEST(Incast, AGroupPausedByADropResumesWhenRefreshFindsItEmpty) {
  // A 16 KiB pool and no headroom: groups are paused by drops while holding nothing. Each
  // refresh re-checks the XON condition, so every paused sender is let go again (it may be
  // re-paused at once by its next dropped frame: starvation here is the configuration's).
  nlohmann::json s =
      run_incast({{"sw0.mmu.buffer", "16KiB"}, {"sw0.port*.pfc.headroom", "0"}, {"sw0.port*.pfc.quanta", "65535"}});
  EXPECT_GT(s["totals"]["lossless_drops"].get<uint64_t>(), 0u);
  for (int i = 0; i < 16; ++i) {
    nlohmann::json ingress = test::find_port(s, "sw0", "h" + std::to_string(i), 3);
    nlohmann::json nic = test::find_port(s, "h" + std::to_string(i), "sw0", 3);
    if (ingress["pause_sent"].get<uint64_t>() == 0) continue;
    EXPECT_GT(ingress["resume_sent"].get<uint64_t>(), 0u) << "h" << i;
    EXPECT_GT(nic["resume_received"].get<uint64_t>(), 0u) << "h" << i;  // the NIC was let go again
  }
}

TEST(Incast, PfcFramesNeverQueueBeyondTheWire) {
  // 2 quanta = 25.6 ns of pause at 40 Gb/s: refreshes come as fast as a 64-byte frame takes on
  // the wire (12.8 ns). Requests that find a PFC frame still queued are merged into it, so a port
  // sends at most 2 ms / 12.8 ns = 156 250 PFC frames and payloads stay bounded. (At 1 quantum a
  // pause lasts exactly as long as its refresh takes on the wire: whether the NIC starts a frame
  // in the picosecond its pause ends and the refresh lands is a tie of simultaneous events, and
  // under one order of ties the peer sends into a full buffer: no margin to test against.)
  nlohmann::json s = run_incast({{"sw0.port*.pfc.quanta", "2"}});
  const nlohmann::json& c = s["counters"];
  for (int i = 0; i <= 16; ++i) {
    std::string key = "sw0.port" + std::to_string(i) + ".pfc.frames_sent";
    if (c.contains(key)) {
      EXPECT_LE(c[key].get<double>(), 156250.0) << key;
    }
  }
  EXPECT_LT(c["sluice.packet_pool.allocated"].get<double>(), 20000.0);
  EXPECT_EQ(s["totals"]["drops"], 0);
}
