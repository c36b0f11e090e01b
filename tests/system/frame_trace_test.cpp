// Frame traces (issue 22): --trace-frames keeps every event of the frames its filter chooses,
// with ids kept across switches, so one frame can be followed from its sender to its receiver.
#include "platforms/frame_trace.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "tests/support/harness.h"

using namespace sluice;

TEST(FrameTrace, FollowsEachFrameOfAFlowFromSenderToReceiverInOrder) {
  run_options o;
  o.cc = "qcn";
  o.until = sc_core::sc_time(200, sc_core::SC_US);
  o.trace_frames = "flow=h0->r0";
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  sim.run();
  ASSERT_NE(sim.trace(), nullptr);
  const auto& rows = sim.trace()->data();
  ASSERT_GT(rows.size(), 1000u);
  std::map<uint64_t, std::vector<std::string>> path;  // frame id -> "event@at", in order
  std::map<uint64_t, uint64_t> last_time;
  for (const frame_trace::row& r : rows) {
    EXPECT_EQ(r.flow, 0u);
    if (r.kind != static_cast<uint8_t>(frame_kind::data)) continue;
    EXPECT_GE(r.time_ps, last_time[r.id]) << "frame " << r.id << ": events in time order";
    last_time[r.id] = r.time_ps;
    path[r.id].push_back(frame_trace::event_of(*r.point) + "@" + frame_trace::at_of(*r.point));
    const bool queue_event = r.point->kind == &probes::enqueue || r.point->kind == &probes::dequeue;
    EXPECT_EQ(queue_event, r.queue != ~0ull);
  }
  // A data frame delivered within the run took this path, with one id all the way (sw1's port 0
  // faces the bottleneck link, its port 1 r0).
  const std::vector<std::string> whole{
      "tx_start@h0.port0.mac",  "rx_end@sw0.port0.mac", "enqueue@sw0.port4.egress", "dequeue@sw0.port4.egress",
      "tx_start@sw0.port4.mac", "rx_end@sw1.port0.mac", "enqueue@sw1.port1.egress", "dequeue@sw1.port1.egress",
      "tx_start@sw1.port1.mac", "rx_end@r0.port0.mac"};
  std::size_t complete = 0;
  for (const auto& [id, events] : path)
    if (events.size() == whole.size()) {
      EXPECT_EQ(events, whole) << "frame " << id;
      ++complete;
    }
  EXPECT_GT(complete, 100u);
  // The flow's CNMs are kept too (its feedback), PFC frames are not (no flow).
  std::size_t cnms = 0;
  for (const frame_trace::row& r : rows) cnms += r.kind == static_cast<uint8_t>(frame_kind::cnm);
  EXPECT_GT(cnms, 0u);
}

TEST(FrameTrace, KindAndIdFiltersAndTheCsv) {
  run_options o;
  o.until = sc_core::sc_time(300, sc_core::SC_US);
  o.trace_frames = "kind=pfc";
  o.sets = {{"sw0.mmu.threshold", "static"}};
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  sim.run();
  const auto& rows = sim.trace()->data();
  ASSERT_GT(rows.size(), 0u);
  for (const frame_trace::row& r : rows) EXPECT_EQ(r.kind, static_cast<uint8_t>(frame_kind::pfc));
  const std::string path = test::write_temp("trace.csv", "");
  sim.trace()->write_csv(path);
  std::istringstream csv(test::slurp(path));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "frame_id,time_ns,event,at,node,kind,flow,class,bytes,queue_bytes");
  std::size_t lines = 0;
  while (std::getline(csv, line)) {
    ++lines;
    EXPECT_NE(line.find(",pfc,"), std::string::npos) << line;
  }
  EXPECT_EQ(lines, rows.size());
}

TEST(FrameTrace, BadFiltersAreOneLineErrors) {
  const std::string run = "run " + test::scenario_path("dumbbell.yaml") + " --until 10us --out /tmp/sluice-trace-x";
  test::expect_cli_error(run + " --trace-frames flow=nope", "--trace-frames: flow 'nope' is not a flow of this run");
  test::expect_cli_error(run + " --trace-frames 'kind=data|pause'", "--trace-frames: 'pause' is not a frame kind");
  test::expect_cli_error(run + " --trace-frames colour=red", "--trace-frames: 'colour' is not a filter term");
  test::expect_cli_error(run + " --trace-frames flow", "--trace-frames: 'flow' must look like flow=N");
  test::expect_cli_error(run + " --trace-frames id=x1", "--trace-frames: id 'x1' is not a frame id");
  test::expect_cli_error("run " + test::scenario_path("dumbbell.yaml") + " --until 10us --trace-frames flow=0",
                         "--trace-frames: needs --out DIR");
}
