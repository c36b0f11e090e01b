// Store and forward across a switch: two serializations, two propagations, one pipeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "models/core/probe.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
const std::string one_switch = test::one_switch("1500B", "run: {until: 20us}\n");
}

TEST(SwitchTiming, StoreAndForwardAddsThePipelineLatency) {
  auto sim = test::make_sim(one_switch);  // default pipeline 500 ns
  sim->run();
  // (300 ns + 1 us) on each link + 500 ns pipeline.
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(3100, SC_NS));
}

TEST(SwitchTiming, PipelineLatencyIsAParameter) {
  auto sim = test::make_sim(one_switch, {{"sw0.pipeline", "250ns"}});
  sim->run();
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(2850, SC_NS));
}

TEST(SwitchTiming, QueueStatisticsSeeTheFrame) {
  auto sim = test::make_sim(one_switch);
  sim->run();
  const switch_port& out = *sim->fabric_model().switches[0]->ports[1];
  EXPECT_EQ(out.queue(3).frames_out, 1u);
  EXPECT_EQ(out.queue(3).bytes_out, 1500u);
  EXPECT_EQ(out.queue(3).bytes, 0u);
}

namespace {
// Picks the lowest eligible queue: strict priority upside down, to prove the binding took.
struct lowest_first : scheduler_if {
  int calls = 0;
  int select(const std::array<uint32_t, max_classes>&, uint32_t eligible) override {
    ++calls;
    for (int q = 0; q < max_classes; ++q)
      if (eligible >> q & 1) return q;
    return -1;
  }
};
}  // namespace

TEST(SwitchBlocks, EgressSchedulerCanBeReplaced) {
  auto sim =
      test::make_sim(test::two_senders(1, 6, "params: {\"sw0.port2.prio6.sched\": strict}\nrun: {until: 500us}\n"));
  lowest_first sched;
  sim->fabric_model().switches[0]->ports[2]->bind_scheduler(sched);
  sim->run();
  nlohmann::json s = sim->summary();
  EXPECT_GT(sched.calls, 1000);
  // The replacement favours priority 1 even though priority 6 is configured strict.
  EXPECT_GT(test::find_flow(s, "h0->r0")["rx_bytes"].get<double>(),
            10 * test::find_flow(s, "h1->r0")["rx_bytes"].get<double>());
}

namespace {
// Declines every other call: an arbiter that sometimes needs another cycle.
struct hesitant : scheduler_if {
  int calls = 0;
  int select(const std::array<uint32_t, max_classes>&, uint32_t eligible) override {
    if (++calls % 2) return -1;
    for (int q = 0; q < max_classes; ++q)
      if (eligible >> q & 1) return q;
    return -1;
  }
};
}  // namespace

TEST(SwitchBlocks, ASchedulerThatDeclinesIsAskedAgain) {
  // One 1500-byte frame: declined once, served one frame time (300 ns) later.
  auto sim = test::make_sim(one_switch);
  hesitant sched;
  sim->fabric_model().switches[0]->ports[1]->bind_scheduler(sched);
  sim->run();
  ASSERT_TRUE(sim->fabric_model().flows[0].stats.completed());
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(3400, SC_NS));
  EXPECT_EQ(sched.calls, 2);
}

namespace {
// Counts lookups and answers from the default table: proves the replacement is in the path.
struct counting_forwarding : forwarding_if {
  const forwarding_table& table;
  mutable int lookups = 0;
  explicit counting_forwarding(const forwarding_table& t) : table(t) {}
  int route(const packet_header& h, int) const override {
    ++lookups;
    return table.lookup(h.dst, h.src, h.flow_id);
  }
};
}  // namespace

TEST(SwitchBlocks, ForwardingCanBeReplaced) {
  auto sim = test::make_sim(one_switch);
  switch_model& sw = *sim->fabric_model().switches[0];
  counting_forwarding fwd(sw.forwarding.table);
  sw.bind_forwarding(fwd);
  sim->run();
  EXPECT_EQ(fwd.lookups, 1);  // one frame
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(3100, SC_NS));
}

TEST(SwitchBlocks, ASplitPhaseSchedulerDelaysEachDequeueByItsLatency) {
  // 3 cycles at 1 GHz: the one frame leaves its queue 3 ns after the pipeline would let it.
  auto sim = test::make_sim(one_switch, {{"sw0.port1.scheduler_latency", "3ns"}});
  sim->run();
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(3103, SC_NS));
}

TEST(SwitchBlocks, ASplitPhaseSchedulerAddsItsLatencyToEveryFrame) {
  // Four back-to-back 1500-byte frames. Without latency the last leaves the switch 3 frame
  // times after the first and arrives at 3100 + 3 x 300 = 4000 ns. With a decision latency L
  // each dequeue is asked when the wire frees (or the head clears the pipeline) and waits L,
  // so the egress wire runs 300 ns + L per frame: the last arrives 4 x L later.
  auto sim =
      test::make_sim(test::one_switch("6000B", "run: {until: 50us}\n"), {{"sw0.port1.scheduler_latency", "3ns"}});
  sim->run();
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(4012, SC_NS));
}

TEST(SwitchBlocks, ABoundSplitSchedulerAnswersThroughTheSeam) {
  // A test double of an RTL block: answers with the lowest eligible queue after 10 ns.
  struct slow_lowest : split_scheduler_if, timed_client {
    scheduler_answer_if* to = nullptr;
    int answer = -1, requests = 0;
    void request(const std::array<uint32_t, max_classes>&, uint32_t eligible, scheduler_answer_if& t) override {
      ++requests;
      to = &t;
      answer = __builtin_ctz(eligible);
      event_queue::instance().schedule(this, now_ps() + 10'000);
    }
    void on_timer() override { to->scheduled(answer); }
  } sched;
  auto sim = test::make_sim(one_switch);
  sim->fabric_model().switches[0]->ports[1]->bind_split_scheduler(sched);
  sim->run();
  EXPECT_EQ(sched.requests, 1);
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(3110, SC_NS));
}

TEST(SwitchBlocks, ASplitPhaseForwardingDelaysEachFrameByItsLatency) {
  // The lookup takes 3 ns after admission: the frame reaches its egress queue 3 ns later.
  auto sim = test::make_sim(one_switch, {{"sw0.forwarding_latency", "3ns"}});
  sim->run();
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(3103, SC_NS));
}

TEST(SwitchBlocks, ABoundSplitForwardingAnswersThroughTheSeam) {
  // A test double of an RTL lookup: answers port 1 after 20 ns, for every frame (four here,
  // back to back 300 ns apart, so answered in order): the last arrives 20 ns later than without.
  struct slow_lookup : split_forwarding_if, timed_client {
    std::vector<tlm::tlm_generic_payload*> frames;
    route_answer_if* to = nullptr;
    int requests = 0;
    void request(tlm::tlm_generic_payload* f, int, route_answer_if& t) override {
      ++requests;
      to = &t;
      frames.push_back(f);
      event_queue::instance().schedule(this, now_ps() + 20'000);
    }
    void on_timer() override {
      for (auto* f : frames) to->routed(f, 1);
      frames.clear();
    }
  } lookup;
  auto sim = test::make_sim(test::one_switch("6000B", "run: {until: 50us}\n"));
  sim->fabric_model().switches[0]->bind_split_forwarding(lookup);
  sim->run();
  EXPECT_EQ(lookup.requests, 4);
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(4020, SC_NS));
}

namespace {
// The times the last bit of each data frame from a reached sw0 (port `in`).
std::vector<uint64_t>& arrivals_at_sw0(int in) {
  static std::vector<uint64_t> at;
  probe_registry::instance().subscribe("sw0.port" + std::to_string(in) + ".mac.rx_end",
                                       [](const probe_point&, const probe_event& e) {
                                         if (e.frame->kind == frame_kind::data) at.push_back(e.time_ps);
                                       });
  return at;
}
}  // namespace

TEST(SwitchBlocks, ASplitPhaseAdmissionDelaysEachDecisionByItsLatency) {
  // 3 cycles at 1 GHz: four back-to-back 1500-byte frames, each decided exactly 3 ns after its
  // last bit arrived (the MMU's admit runs then), so each reaches its queue 3 ns later. The
  // decisions are pipelined: the last frame arrives 3 ns later than without (4000 ns), not 12.
  auto sim = test::make_sim(test::one_switch("6000B", "run: {until: 50us}\n"), {{"sw0.admission_latency", "3ns"}});
  switch_model& sw = *sim->fabric_model().switches[0];
  test::counting_mmu mmu(sw.mmu_block);
  sw.bind_mmu(mmu);
  const std::vector<uint64_t>& arrived = arrivals_at_sw0(test::port_toward(sim->fabric_model(), "sw0", "a", 2));
  sim->run();
  ASSERT_EQ(arrived.size(), 4u);
  ASSERT_EQ(mmu.admits.size(), 4u);
  for (size_t i = 0; i < arrived.size(); ++i) EXPECT_EQ(mmu.admits[i].at_ps, arrived[i] + 3'000) << "frame " << i;
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(4003, SC_NS));
}

TEST(SwitchBlocks, AnImmediateAdmissionIsDecidedAtArrival) {
  // The same run without the latency: the reference the test above shifts by 3 ns.
  auto sim = test::make_sim(test::one_switch("6000B", "run: {until: 50us}\n"));
  switch_model& sw = *sim->fabric_model().switches[0];
  test::counting_mmu mmu(sw.mmu_block);
  sw.bind_mmu(mmu);
  const std::vector<uint64_t>& arrived = arrivals_at_sw0(test::port_toward(sim->fabric_model(), "sw0", "a", 2));
  sim->run();
  ASSERT_EQ(mmu.admits.size(), 4u);
  for (size_t i = 0; i < arrived.size(); ++i) EXPECT_EQ(mmu.admits[i].at_ps, arrived[i]) << "frame " << i;
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(4000, SC_NS));
}

TEST(SwitchBlocks, ABoundSplitMmuAnswersThroughTheSeam) {
  // A test double of an RTL buffer manager: decides with the default MMU 20 ns after each
  // request (four frames, 300 ns apart, answered in order): the last arrives 20 ns later.
  struct slow_buffer_manager : split_mmu_if, timed_client {
    mmu_if* inner = nullptr;
    std::vector<std::pair<tlm::tlm_generic_payload*, int>> frames;
    admission_answer_if* to = nullptr;
    int requests = 0;
    void request(tlm::tlm_generic_payload* f, int port, admission_answer_if& t) override {
      ++requests;
      to = &t;
      frames.push_back({f, port});
      event_queue::instance().schedule(this, now_ps() + 20'000);
    }
    void on_timer() override {
      for (auto [f, port] : frames) {
        bool xoff = false;
        const bool ok = inner->admit(port, header(*f).priority, header(*f).size, xoff);
        to->admitted(f, ok, xoff);
      }
      frames.clear();
    }
  } manager;
  auto sim = test::make_sim(test::one_switch("6000B", "run: {until: 50us}\n"));
  switch_model& sw = *sim->fabric_model().switches[0];
  manager.inner = &sw.mmu_block;
  sw.bind_split_mmu(manager);
  sim->run();
  EXPECT_EQ(manager.requests, 4);
  EXPECT_EQ(sw.mmu_block.usage(test::port_toward(sim->fabric_model(), "sw0", "a", 2), 3).total(), 0u);  // all released
  EXPECT_EQ(from_ps(sim->fabric_model().flows[0].stats.completed_ps), sc_time(4020, SC_NS));
}

namespace {
// The incast with static thresholds (PFC pauses from about 0.2 ms), 1 ms, through the split-phase
// admission path at latency 0 (`split_mmu`), every port of sw0 deciding through the split-phase
// scheduler path at latency 0 (`split_scheduler`), or the immediate ones: every PFC frame sw0
// sends and every dequeue (time, port, frame id), then the summary.
std::string incast_through(bool split_mmu, bool split_scheduler = false) {
  run_options o;
  o.until = sc_time(1, sc_core::SC_MS);
  o.sets = {{"sw0.mmu.threshold", "static"}};
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  switch_model& sw = *sim.fabric_model().switches[0];
  latency_mmu zero(sw.mmu_block, 0);
  if (split_mmu) sw.bind_split_mmu(zero);
  std::vector<std::unique_ptr<latency_scheduler>> zero_schedulers;
  if (split_scheduler)
    for (auto& port : sw.ports) {
      zero_schedulers.push_back(std::make_unique<latency_scheduler>(port->active_scheduler(), 0));
      port->bind_split_scheduler(*zero_schedulers.back());
    }
  std::ostringstream log;
  probe_registry::instance().subscribe("sw0.*.mac.tx_start", [&](const probe_point& p, const probe_event& e) {
    if (e.frame->kind == frame_kind::pfc) log << e.time_ps << ' ' << p.name() << '\n';
  });
  probe_registry::instance().subscribe("sw0.*.egress.dequeue", [&](const probe_point& p, const probe_event& e) {
    log << e.time_ps << ' ' << p.name() << ' ' << e.frame->id() << '\n';
  });
  sim.run();
  nlohmann::json s = sim.summary();
  s["totals"].erase("wall_time_s");
  s["totals"].erase("elaboration_s");
  s.erase("provenance");  // the date; the models' results are the rest
  return log.str() + "summary " + s.dump(1) + "\n";
}
}  // namespace

TEST(SwitchBlocks, TheSplitAdmissionPathAtZeroLatencyGivesTheImmediateOutputs) {
  // The split-phase path itself (a latency_mmu of 0 bound on the switch), not the immediate
  // one: every PAUSE frame at the same time and the summary byte for byte the same.
  const std::string immediate = test::in_child([] { return incast_through(false); });
  const std::string split = incast_through(true);
  EXPECT_GT(std::count(split.begin(), split.end(), '\n'), 5000);  // PFC frames and dequeues
  EXPECT_EQ(split, immediate);
}

TEST(SwitchBlocks, TheSplitSchedulerPathAtZeroLatencyGivesTheImmediateOutputs) {
  // Every dequeue (time, port, frame id) and the summary byte for byte the same.
  const std::string immediate = test::in_child([] { return incast_through(false); });
  const std::string split = incast_through(false, true);
  EXPECT_GT(std::count(split.begin(), split.end(), '\n'), 5000);  // dequeues
  EXPECT_EQ(split, immediate);
}

TEST(SwitchBlocks, ADelayedAdmissionKeepsALosslessClassLossless) {
  // The verdict, and so the XOFF, comes 2 us late: the derived headroom grows by 2 us at the
  // link rate (10 000 B at 40 Gb/s: 13 064 + 10 000 B -> 23 KiB) and the incast, pausing,
  // drops nothing.
  run_options o;
  o.until = sc_time(1, sc_core::SC_MS);
  o.sets = {{"sw0.mmu.threshold", "static"}, {"sw0.admission_latency", "2us"}};
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  sim.run();
  EXPECT_EQ(sim.fabric_model().switches[0]->mmu_block.headroom_bytes(0, 3), 23u * 1024);
  nlohmann::json s = sim.summary();
  EXPECT_GT(s["totals"]["pause_frames"].get<uint64_t>(), 100u);
  EXPECT_EQ(s["totals"]["lossless_drops"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["totals"]["drops"].get<uint64_t>(), 0u);
}
