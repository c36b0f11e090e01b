// ECM (BCN) end to end: negative and positive BCN travel as real frames (version-1 CNMs) from the
// switch queues to the senders, which tag their rate-limited frames with the CPID of the last
// negative BCN. On a dumbbell the bottleneck queue settles near Qeq; on a parking lot the long
// flow, crossing three congestion points, hears positive feedback only from the one it is
// associated with.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;

using test::counter;

TEST(EcmSystem, DumbbellQueueSettlesNearQeqWithTheLinkBusy) {
  run_options o;
  auto sim = std::make_unique<simulation>(load_scenario_file(test::scenario_path("dumbbell-ecm.yaml")), o);
  sim->run();
  nlohmann::json s = sim->summary();
  // Bound: the mean depth of the bottleneck queue (sw0.port4, class 3) after the last join
  // (3 ms) and 2 ms to settle lies in [0.5, 2] x Qeq (26 624 B). Above Qeq with the queue
  // steady, every sample (one per ~150 KB, ~30 us at 40 Gb/s) is negative and cuts the sampled
  // flow by gd x |Fb| (|Fb| = 26 KB: 10 %); below Qeq every sample of a tagged frame is positive
  // and adds gi x ru = 50 Mb/s, 0.1 % of the aggregate: the rates creep up into Qeq and are cut
  // back on crossing it, so the queue sits just below Qeq and does not drain (it would take a
  // 40 Gb/s x 26 KB / (drain) deficit the 10 % cuts of one flow in four do not make).
  // Measured, seeds 1-3: mean 0.80-0.89 x Qeq (0.71-0.79 past the pipeline's 2.5 KB), max 30 KB.
  const double qeq = 26624;
  const series& q = sim->samples().queue_depth;
  int col = -1;
  for (std::size_t c = 0; c < q.columns.size(); ++c)
    if (q.columns[c] == "sw0.port4.p3") col = static_cast<int>(c);
  ASSERT_GE(col, 0);
  double sum = 0, peak = 0;
  int n = 0;
  for (std::size_t r = 0; r < q.rows.size(); ++r) {
    if (q.times_us[r] <= 5000) continue;
    sum += q.rows[r][col];
    peak = std::max(peak, q.rows[r][col]);
    ++n;
  }
  EXPECT_GE(sum / n, 0.5 * qeq);
  EXPECT_LE(sum / n, 2 * qeq);
  EXPECT_LT(peak, 3 * qeq);
  EXPECT_GT(test::utilization(s, "sw0->sw1"), 0.9);
  EXPECT_EQ(s["totals"]["pause_frames"], 0);
  EXPECT_EQ(s["totals"]["drops"], 0);
  // Both kinds of feedback reached every sender; every BCN the CP sent arrived (the last few may
  // be on the wire at the end).
  double negative = 0, positive = 0;
  for (const char* h : {"h0", "h1", "h2", "h3"}) {
    EXPECT_GT(counter(s, std::string(h) + ".ecm.negative_received"), 0) << h;
    EXPECT_GT(counter(s, std::string(h) + ".ecm.positive_received"), 0) << h;
    negative += counter(s, std::string(h) + ".ecm.negative_received");
    positive +=
        counter(s, std::string(h) + ".ecm.positive_received") + counter(s, std::string(h) + ".ecm.positive_ignored");
  }
  const double sent = counter(s, "sw0.port4.prio3.ecm.negative_sent") + counter(s, "sw0.port4.prio3.ecm.positive_sent");
  EXPECT_LE(negative + positive, sent);
  EXPECT_GE(negative + positive, sent - 5);
  EXPECT_EQ(s["totals"]["cnm_frames"].get<double>(), negative + positive);
}

TEST(EcmSystem, ParkingLotLongFlowHearsPositiveFeedbackOnlyFromItsAssociatedCp) {
  // h0 -> r0 crosses the class-3 queues of sw0, sw1 and sw2 toward the next switch, each shared
  // with one cross flow. A CP sends positive BCN only for a frame tagged with its own CPID, so
  // h0 (tagged with the CPID of the last CP that cut it) hears positive feedback only from that
  // one; the reaction point would count any other as positive_ignored. Only a BCN crossing a
  // re-association in flight can be ignored (measured, seeds 1-3: 4, 0 and 0 of 60-187).
  // Without the CP's tag check the two other CPs, below Qeq most of the time, send h0's frames
  // positive BCN too (measured before 7305a67, seed 1, with the check removed: 252 ignored against 50 applied).
  run_options o;
  o.cc = "ecm";
  o.until = sc_core::sc_time(20, sc_core::SC_MS);
  auto sim = std::make_unique<simulation>(load_scenario_file(test::scenario_path("parking-lot.yaml")), o);
  sim->run();
  nlohmann::json s = sim->summary();
  const double received = counter(s, "h0.ecm.positive_received");
  EXPECT_GT(received, 20);
  EXPECT_LE(counter(s, "h0.ecm.positive_ignored"), 0.05 * received);
  EXPECT_GT(counter(s, "h0.ecm.negative_received"), 0);
  for (const char* x : {"x0", "x1", "x2"}) EXPECT_GT(counter(s, std::string(x) + ".ecm.positive_received"), 0) << x;
  EXPECT_EQ(s["totals"]["pause_frames"], 0);
}
