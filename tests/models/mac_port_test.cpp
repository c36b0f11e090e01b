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

// The earliest work-conserving schedule: at each free instant, the lowest-numbered ready frame;
// when none is ready, the next ready time. False if a frame's ready time falls on an instant
// the wire frees (the order of the two wake-ups would decide; the plan is nudged instead).
bool oracle(const std::vector<planned_frame>& plan, std::vector<uint64_t>& starts) {
  std::vector<bool> sent(plan.size());
  starts.assign(plan.size(), 0);
  uint64_t t = 0;
  for (std::size_t n = 0; n < plan.size(); ++n) {
    std::size_t pick = plan.size();
    uint64_t earliest = never_ps;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (sent[i]) continue;
      if (plan[i].ready_ps == t && t > 0) return false;
      if (plan[i].ready_ps <= t && pick == plan.size()) pick = i;
      earliest = std::min(earliest, plan[i].ready_ps);
    }
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
