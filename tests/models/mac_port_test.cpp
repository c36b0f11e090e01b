// The MAC's transmit decision (models/link/mac_port.h): whatever the mix of kicks, paced
// retries and nested requests, each frame starts at the first picosecond it is ready and the
// wire is free. The inline kick (which returns when a look is already due by the wire's end)
// and the look it stands for must agree; a kick that returned when the look was due later
// would start a frame late.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/support/harness.h"
#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::sc_time;

namespace {

constexpr data_rate rate{40e9};

// A frame the source may send from ready_ps on. A pushed frame (an egress queue's) is seen only
// when its kick comes, at ready_ps; a paced one (a NIC's) is promised ahead through retry_ps and
// next_ready_ps, with no kick.
struct planned_frame {
  uint64_t ready_ps;
  uint32_t bytes;
  bool pushed;
};

// Sends the lowest-numbered frame it may, as a priority scheduler would.
struct planned_source : frame_source_if {
  std::vector<planned_frame> plan;
  std::vector<bool> sent, seen;
  std::vector<uint64_t> starts;  // per frame
  mac_port* mac = nullptr;
  std::mt19937_64 rng{7};
  int nested = 0;

  bool may(std::size_t i, uint64_t now) const {
    return !sent[i] && (plan[i].pushed ? seen[i] : plan[i].ready_ps <= now);
  }
  tlm::tlm_generic_payload* next_frame(uint64_t now, uint64_t& retry_ps) override {
    if (rng() % 8 == 0) {
      mac->kick();  // a request from inside the decision: served after this frame
      ++nested;
    }
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (may(i, now)) {
        sent[i] = true;
        starts[i] = now;
        tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
        header(*p).kind = frame_kind::data;
        header(*p).size = plan[i].bytes;
        return p;
      }
      if (!sent[i] && !plan[i].pushed) retry_ps = std::min(retry_ps, plan[i].ready_ps);
    }
    return nullptr;
  }
  uint64_t next_ready_ps(uint64_t now) const override {
    uint64_t next = never_ps;
    for (std::size_t i = 0; i < plan.size(); ++i)
      if (!sent[i]) {
        if (may(i, now)) return now;
        if (!plan[i].pushed) next = std::min(next, plan[i].ready_ps);
      }
    return next;
  }
};

// Kicks the MAC at each pushed frame's ready time (making it seen) and at extra times.
struct kicker : timed_client {
  planned_source& src;
  std::vector<std::pair<uint64_t, int>> kicks;  // (time, frame or -1), in time order
  std::size_t next = 0;
  explicit kicker(planned_source& s) : src(s) {}
  void on_timer() override {
    const uint64_t now = now_ps();
    for (; next < kicks.size() && kicks[next].first == now; ++next) {
      if (kicks[next].second >= 0) src.seen[kicks[next].second] = true;
      src.mac->kick();
    }
    if (next < kicks.size()) event_queue::instance().schedule(this, kicks[next].first);
  }
};

// The lowest-numbered unsent frame ready at t (plan.size() if none), lowering `earliest` to the
// first ready time of those unsent; false if one becomes ready exactly at t when t is a wire's
// end (a tie).
bool first_ready(const std::vector<planned_frame>& plan, const std::vector<bool>& sent, uint64_t t, bool wire_end,
                 std::size_t& pick, uint64_t& earliest) {
  pick = plan.size();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (sent[i]) continue;
    if (plan[i].ready_ps == t && wire_end) return false;
    if (plan[i].ready_ps <= t && pick == plan.size()) pick = i;
    earliest = std::min(earliest, plan[i].ready_ps);
  }
  return true;
}

// The earliest work-conserving schedule: at each free instant, the lowest-numbered ready frame;
// when none is ready, the next ready time. False if a frame's ready time falls on an instant
// the wire frees (the order of the two wake-ups would decide; the plan is nudged instead).
bool oracle(const std::vector<planned_frame>& plan, std::vector<uint64_t>& starts) {
  std::vector<bool> sent(plan.size());
  starts.assign(plan.size(), 0);
  uint64_t t = 0;
  for (std::size_t n = 0; n < plan.size(); ++n) {
    uint64_t earliest = never_ps;
    std::size_t pick = 0;
    if (!first_ready(plan, sent, t, t > 0, pick, earliest)) return false;
    if (pick == plan.size()) {
      t = earliest;
      for (std::size_t i = 0; i < plan.size() && pick == plan.size(); ++i)
        if (!sent[i] && plan[i].ready_ps <= t) pick = i;
    }
    sent[pick] = true;
    starts[pick] = t;
    t += rate.serialization_ps(plan[pick].bytes);
  }
  return true;
}

}  // namespace

TEST(MacPort, EachFrameStartsWhenReadyAndTheWireIsFreeWhateverTheKicks) {
  test::mac_pair bench(rate);
  planned_source src;
  kicker kicks(src);
  src.mac = &bench.a;
  bench.a.attach(&src, &bench.a_sink);

  // Bursts of frames ready close together (so that many wait behind the wire), with quiet
  // gaps between them; a third pushed, two thirds paced; sizes from 64 B to 1500 B.
  std::mt19937_64 rng(2026);
  uint64_t t = 1000;
  for (int burst = 0; burst < 150; ++burst) {
    const int frames = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < frames; ++i) {
      t += rng() % 120'000;
      src.plan.push_back({t, 64 + static_cast<uint32_t>(rng() % 1437), rng() % 3 == 0});
    }
    t += rng() % 3'000'000;
  }
  // Shuffled, so that lower numbers (which go first) are often ready later.
  std::shuffle(src.plan.begin(), src.plan.end(), rng);
  std::vector<uint64_t> expected;
  while (!oracle(src.plan, expected))
    for (planned_frame& f : src.plan) f.ready_ps += 1;  // away from a tie with a wire's end
  src.sent.assign(src.plan.size(), false);
  src.seen.assign(src.plan.size(), false);
  src.starts.assign(src.plan.size(), never_ps);

  for (std::size_t i = 0; i < src.plan.size(); ++i)
    if (src.plan[i].pushed) kicks.kicks.push_back({src.plan[i].ready_ps, static_cast<int>(i)});
  for (int i = 0; i < 600; ++i) kicks.kicks.push_back({1 + rng() % t, -1});  // kicks that find nothing new
  std::sort(kicks.kicks.begin(), kicks.kicks.end());
  event_queue::instance().schedule(&kicks, kicks.kicks.front().first);

  sluice::start(from_ps(t + 10'000'000));

  ASSERT_EQ(bench.b_sink.frames.size(), src.plan.size());
  int late = 0, waited = 0;
  for (std::size_t i = 0; i < src.plan.size(); ++i) {
    late += src.starts[i] != expected[i];
    waited += expected[i] > src.plan[i].ready_ps;
  }
  EXPECT_EQ(late, 0) << "frames not started at the first picosecond they could";
  EXPECT_EQ(src.starts, expected);
  // The mix the test is for: frames queued behind the wire, kicks while it is busy, nested ones.
  EXPECT_GT(waited, 300);
  EXPECT_GT(src.nested, 50);
}

// Frames the port's owner injects (inject: a congestion point's notification, a switch's own
// frame) go ahead of the source's, in the order injected, each as soon as the wire is free;
// one injected while the source hands out a frame follows that frame. With no source attached
// (nullptr: the port asks the no_frames source) injected frames still go back to back. The
// decision keeps "look again when the wire frees" in one flag (again_): a frame left waiting
// in the injected queue, or a nested request, must not lose its look.
namespace {

constexpr uint32_t injected_bytes = 64;

struct injection {
  uint64_t at_ps;
  int id;
};

// The source of the first test, which also injects a frame as it hands out each frame i with
// inject_after[i] set (from inside the decision).
struct injecting_source : planned_source {
  std::vector<bool> inject_after;
  std::vector<int> nested_ids;  // in order
  int next_id = 0;
  tlm::tlm_generic_payload* next_frame(uint64_t now, uint64_t& retry_ps) override {
    tlm::tlm_generic_payload* p = planned_source::next_frame(now, retry_ps);
    if (p) {
      std::size_t i = 0;
      while (starts[i] != now || !sent[i] || header(*p).size != plan[i].bytes) ++i;
      if (inject_after[i]) {
        tlm::tlm_generic_payload* c = packet_pool::instance().acquire();
        header(*c).kind = frame_kind::cnm;
        header(*c).size = injected_bytes;
        header(*c).flow_id = static_cast<uint32_t>(next_id);
        nested_ids.push_back(next_id++);
        mac->inject(c);
      }
    }
    return p;
  }
};

// Injects a frame (cnm, 64 B, its id in flow_id) at each planned time.
struct injector : timed_client {
  mac_port* mac = nullptr;
  std::vector<injection> plan;  // in time order
  std::size_t next = 0;
  void on_timer() override {
    const uint64_t now = now_ps();
    for (; next < plan.size() && plan[next].at_ps == now; ++next) {
      tlm::tlm_generic_payload* c = packet_pool::instance().acquire();
      header(*c).kind = frame_kind::cnm;
      header(*c).size = injected_bytes;
      header(*c).flow_id = static_cast<uint32_t>(plan[next].id);
      mac->inject(c);
    }
    if (next < plan.size()) event_queue::instance().schedule(this, plan[next].at_ps);
  }
};

// The expected start of every frame on the wire, source frames and injected ones by id: at each
// free instant the oldest waiting injected frame, else the lowest-numbered ready source frame.
// False on a tie of a planned time with a wire's end (the plan is nudged instead).
bool oracle_with_injections(const std::vector<planned_frame>& plan, const std::vector<bool>& inject_after,
                            const std::vector<injection>& injections, std::vector<uint64_t>& starts,
                            std::vector<uint64_t>& injected_starts, int nested_base) {
  // An injection in the picosecond a source frame becomes ready: the order of the two wake-ups
  // would decide.
  for (const injection& i : injections)
    for (const planned_frame& f : plan)
      if (i.at_ps == f.ready_ps) return false;
  std::vector<bool> sent(plan.size());
  starts.assign(plan.size(), never_ps);
  injected_starts.assign(injections.size() + plan.size(), never_ps);
  std::vector<std::pair<uint64_t, int>> waiting;  // (injected at, id): timed ones, then nested ones as they come
  std::size_t next_timed = 0;
  int next_nested = nested_base;
  uint64_t t = 0;
  bool wire_end = false;  // t is when a frame leaves the wire, not an idle wire's next event
  std::size_t left = plan.size() + injections.size();
  for (const bool b : inject_after) left += b;
  while (left > 0) {
    for (; next_timed < injections.size() && injections[next_timed].at_ps <= t; ++next_timed) {
      if (injections[next_timed].at_ps == t && wire_end) return false;
      waiting.push_back({injections[next_timed].at_ps, injections[next_timed].id});
    }
    std::stable_sort(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (!waiting.empty()) {
      injected_starts[waiting.front().second] = t;
      waiting.erase(waiting.begin());
      t += rate.serialization_ps(injected_bytes);
      wire_end = true;
      --left;
      continue;
    }
    uint64_t earliest = next_timed < injections.size() ? injections[next_timed].at_ps : never_ps;
    std::size_t pick = 0;
    if (!first_ready(plan, sent, t, wire_end, pick, earliest)) return false;
    if (pick == plan.size()) {
      t = earliest;  // the next ready frame or injection, on an idle wire
      wire_end = false;
      continue;
    }
    sent[pick] = true;
    starts[pick] = t;
    if (inject_after[pick]) waiting.push_back({t, next_nested++});
    t += rate.serialization_ps(plan[pick].bytes);
    wire_end = true;
    --left;
  }
  return true;
}

void run_with_injections(bool with_source) {
  test::mac_pair bench(rate);
  injecting_source src;
  kicker kicks(src);
  injector inj;
  src.mac = inj.mac = &bench.a;
  bench.a.attach(with_source ? &src : nullptr, &bench.a_sink);

  std::mt19937_64 rng(with_source ? 12 : 13);
  uint64_t t = 1000;
  for (int burst = 0; burst < 60; ++burst) {
    const int frames = 1 + static_cast<int>(rng() % 10);
    for (int i = 0; i < frames; ++i) {
      t += rng() % 120'000;
      if (with_source) {
        src.plan.push_back({t, 64 + static_cast<uint32_t>(rng() % 1437), rng() % 3 == 0});
        src.inject_after.push_back(rng() % 5 == 0);
      }
      // Bursts of injections too, often several waiting behind the wire at once.
      if (rng() % 2 == 0) inj.plan.push_back({t + rng() % 100'000, 0});
    }
    t += rng() % 3'000'000;
  }
  auto in_time_order = [&] {
    std::stable_sort(inj.plan.begin(), inj.plan.end(),
                     [](const injection& a, const injection& b) { return a.at_ps < b.at_ps; });
    for (std::size_t k = 0; k < inj.plan.size(); ++k) inj.plan[k].id = static_cast<int>(k);
  };
  in_time_order();
  src.next_id = static_cast<int>(inj.plan.size());
  std::vector<uint64_t> expected, expected_injected;
  while (!oracle_with_injections(src.plan, src.inject_after, inj.plan, expected, expected_injected,
                                 static_cast<int>(inj.plan.size()))) {
    // Away from a tie with a wire's end or a source frame's ready time, each time by its own
    // step: moved all alike, a wire's end would keep its tie.
    for (planned_frame& f : src.plan) f.ready_ps += rng() % 3;
    for (injection& i : inj.plan) i.at_ps += rng() % 3;
    in_time_order();
  }
  src.sent.assign(src.plan.size(), false);
  src.seen.assign(src.plan.size(), false);
  src.starts.assign(src.plan.size(), never_ps);
  for (std::size_t i = 0; i < src.plan.size(); ++i)
    if (src.plan[i].pushed) kicks.kicks.push_back({src.plan[i].ready_ps, static_cast<int>(i)});
  std::sort(kicks.kicks.begin(), kicks.kicks.end());
  if (!kicks.kicks.empty()) event_queue::instance().schedule(&kicks, kicks.kicks.front().first);
  event_queue::instance().schedule(&inj, inj.plan.front().at_ps);

  sluice::start(from_ps(t + 10'000'000));

  // Each injected frame's start: its arrival at b less the serialization and the cable.
  const uint64_t flight = rate.serialization_ps(injected_bytes) + 1'000'000;
  std::size_t injected = 0;
  for (const test::recording_sink::arrival& a : bench.b_sink.frames)
    if (a.kind == frame_kind::cnm) ++injected;
  ASSERT_EQ(bench.b_sink.frames.size(), src.plan.size() + injected);
  ASSERT_EQ(injected, inj.plan.size() + src.nested_ids.size());
  // The sink records no flow id: injected frames are matched by their arrival order, which
  // their expected starts give.
  std::vector<uint64_t> arrivals;
  for (const test::recording_sink::arrival& a : bench.b_sink.frames)
    if (a.kind == frame_kind::cnm) arrivals.push_back(a.at_ps - flight);
  std::vector<uint64_t> expected_sorted;
  for (const uint64_t s : expected_injected)
    if (s != never_ps) expected_sorted.push_back(s);
  std::sort(expected_sorted.begin(), expected_sorted.end());
  EXPECT_EQ(arrivals, expected_sorted);
  EXPECT_EQ(src.starts, expected);
  EXPECT_GT(inj.plan.size(), 100u);
  if (with_source) {
    EXPECT_GT(src.nested_ids.size(), 30u);
  }
}

}  // namespace

TEST(MacPort, InjectedFramesGoFirstInOrderAndBackToBackBesideASource) { run_with_injections(true); }

TEST(MacPort, InjectedFramesGoBackToBackOnAPortWithNoSource) { run_with_injections(false); }
