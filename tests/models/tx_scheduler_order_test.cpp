// The NIC's transmit scheduler keeps its flows in a heap keyed by (ready time, tie counter) and
// updates the sender's key in place after a frame (issue 23). These tests drive it frame by
// frame against a reference model that keeps the same keys in a plain list and takes the
// least: the sequence of flows sent must be the same, so a change to the heap that reorders
// ties (flows ready together, served round robin in the order they were queued) fails here.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "models/nic/nic.h"

using namespace sluice;

namespace {
constexpr uint64_t mtu = 1000;

// Each flow's next send time after a frame: a small set of gaps, so many flows are ready at
// the same instant and ties decide.
uint64_t gap_of(uint32_t flow, uint64_t frames_sent) { return 1000 * ((flow * 7 + frames_sent * 3) % 4); }

class scripted_limiter : public rate_limiter_if {
 public:
  explicit scripted_limiter(uint32_t flow) : flow_(flow) {}
  void set_rate(data_rate) override {}
  data_rate rate() const override { return data_rate{0}; }
  uint64_t next_send_ps() const override { return next_ps; }
  void on_send(uint64_t now_ps, uint64_t, data_rate) override { next_ps = now_ps + gap_of(flow_, ++frames_); }
  uint64_t next_ps = 0;

 private:
  uint32_t flow_;
  uint64_t frames_ = 0;
};

// While a frame is built, its reaction point changes a limiter and tells the scheduler, as
// DCQCN's byte counter does: its own flow's (read when the sender goes back into the heap) or
// another flow's (that flow re-ordered at once).
class rescheduling_rp : public reaction_point_if {
 public:
  rescheduling_rp(tx_scheduler& tx, scripted_limiter& target, uint32_t target_flow)
      : tx_(tx), target_(target), target_flow_(target_flow) {}
  void on_feedback(const packet_header&, uint64_t) override {}
  void on_send(const packet_header&, uint64_t now_ps) override {
    if (++sends_ % 3) return;
    target_.next_ps = now_ps + 2000;
    tx_.reschedule(target_flow_);
  }

 private:
  tx_scheduler& tx_;
  scripted_limiter& target_;
  uint32_t target_flow_;
  uint64_t sends_ = 0;
};

// The reference: every flow's (ready, order) in a list, the least sent when it is due.
struct reference_model {
  struct entry {
    uint64_t ready = 0, order = 0, sent = 0, frames = 0;
    bool in = true;
  };
  std::vector<entry> flows;
  std::vector<uint64_t> sizes;  // 0: never finishes
  uint64_t order = 0;
  void requeue(uint32_t f, uint64_t ready) {
    flows[f].ready = ready;
    flows[f].order = order++;
  }
  // The flow sent at now_ps, or -1 (retry_ps: when one is due).
  int next(uint64_t now_ps, uint64_t& retry_ps) {
    int best = -1;
    for (uint32_t f = 0; f < flows.size(); ++f) {
      if (!flows[f].in) continue;
      if (best < 0 || flows[f].ready < flows[best].ready ||
          (flows[f].ready == flows[best].ready && flows[f].order < flows[best].order))
        best = static_cast<int>(f);
    }
    if (best < 0) return -1;
    if (flows[best].ready > now_ps) {
      retry_ps = flows[best].ready;
      return -1;
    }
    return best;
  }
};

struct run_result {
  std::vector<uint32_t> sent;
  uint64_t end_ps = 0;
};

// A frame every 700 ps while one is due (next returns its flow), else on to the next due time.
template <class Next>
run_result drive(Next next) {
  run_result r;
  uint64_t now = 0;
  for (int step = 0; step < 2000; ++step) {
    uint64_t retry = never_ps;
    const int f = next(now, retry);
    if (f >= 0) {
      r.sent.push_back(static_cast<uint32_t>(f));
      now += 700;
    } else if (retry == never_ps) {
      break;
    } else {
      now = retry;
    }
  }
  r.end_ps = now;
  return r;
}

run_result run_scheduler(const std::vector<uint64_t>& sizes, bool reaction_points) {
  const uint32_t n = static_cast<uint32_t>(sizes.size());
  flow_table flows(n);
  nic host("h0", 0, flows, 1);
  tx_scheduler tx(host.port.mac, host.port.gate(), flows, 1);
  std::vector<std::unique_ptr<scripted_limiter>> limiters;
  std::vector<std::unique_ptr<rescheduling_rp>> rps;
  for (uint32_t f = 0; f < n; ++f) limiters.push_back(std::make_unique<scripted_limiter>(f));
  for (uint32_t f = 0; f < n; ++f) {
    flows[f].id = f;
    flows[f].spec.kind = sizes[f] ? flow_kind::finite : flow_kind::constant;
    flows[f].spec.size = sizes[f];
    flows[f].spec.rate = data_rate{100'000'000'000};
    flows[f].spec.dst = 1;
    if (reaction_points && f % 4 == 1) {
      const uint32_t target = f % 8 == 1 ? f : (f + 5) % n;  // itself, or another flow
      rps.push_back(std::make_unique<rescheduling_rp>(tx, *limiters[target], target));
    }
    tx.add_flow(f, limiters[f].get(), reaction_points && f % 4 == 1 ? rps.back().get() : nullptr);
  }
  frame_format format;
  format.mtu = mtu;
  tx.start(format);
  return drive([&](uint64_t now, uint64_t& retry) {
    tlm::tlm_generic_payload* p = tx.next_frame(now, retry);
    if (!p) return -1;
    const int f = static_cast<int>(header(*p).flow_id);
    p->release();
    return f;
  });
}

run_result run_reference(const std::vector<uint64_t>& sizes, bool reaction_points) {
  const uint32_t n = static_cast<uint32_t>(sizes.size());
  reference_model m;
  m.flows.resize(n);
  std::vector<uint64_t> sends(n), rp_target(n, UINT32_MAX);
  for (uint32_t f = 0; f < n; ++f) {
    m.requeue(f, 0);
    if (reaction_points && f % 4 == 1) rp_target[f] = f % 8 == 1 ? f : (f + 5) % n;
  }
  std::vector<uint64_t> limiter_next(n, 0), limiter_frames(n, 0);
  return drive([&](uint64_t now, uint64_t& retry) {
    const int best = m.next(now, retry);
    if (best < 0) return -1;
    const uint32_t f = static_cast<uint32_t>(best);
    limiter_next[f] = now + gap_of(f, ++limiter_frames[f]);
    m.flows[f].sent += mtu;
    if (rp_target[f] != UINT32_MAX && ++sends[f] % 3 == 0) {
      const uint32_t t = static_cast<uint32_t>(rp_target[f]);
      limiter_next[t] = now + 2000;
      if (t != f && m.flows[t].in) m.requeue(t, limiter_next[t]);  // the sender itself: below
    }
    if (sizes[f] && m.flows[f].sent >= sizes[f])
      m.flows[f].in = false;
    else
      m.requeue(f, limiter_next[f]);
    return best;
  });
}

// 24 flows, a third finishing after a few frames, all starting together.
std::vector<uint64_t> mixed_sizes() {
  std::vector<uint64_t> sizes;
  for (uint32_t f = 0; f < 24; ++f) sizes.push_back(f % 3 == 0 ? (3 + f % 5) * mtu : 0);
  return sizes;
}
}  // namespace

TEST(TransmitScheduler, FlowsReadyTogetherLeaveInTheReferenceOrder) {
  const run_result got = run_scheduler(mixed_sizes(), false), want = run_reference(mixed_sizes(), false);
  ASSERT_GT(got.sent.size(), 1000u);
  EXPECT_EQ(got.sent, want.sent);
  EXPECT_EQ(got.end_ps, want.end_ps);
  // The first round: all 24 ready at 0, in the order they were added.
  for (uint32_t f = 0; f < 24; ++f) EXPECT_EQ(got.sent[f], f);
}

TEST(TransmitScheduler, RescheduledWhileAFrameIsBuiltKeepsTheReferenceOrder) {
  const run_result got = run_scheduler(mixed_sizes(), true), want = run_reference(mixed_sizes(), true);
  ASSERT_GT(got.sent.size(), 1000u);
  EXPECT_EQ(got.sent, want.sent);
  EXPECT_EQ(got.end_ps, want.end_ps);
}

TEST(TransmitScheduler, FiniteFlowsAloneAllFinishInTheReferenceOrder) {
  std::vector<uint64_t> sizes;
  for (uint32_t f = 0; f < 16; ++f) sizes.push_back((1 + f % 6) * mtu);
  const run_result got = run_scheduler(sizes, true), want = run_reference(sizes, true);
  EXPECT_EQ(got.sent.size(), 52u);  // 16 flows of 1..6 frames
  EXPECT_EQ(got.sent, want.sent);
}
