// One clock: the timer queue rejects wake-ups in the models' past, drains ahead of the kernel
// only up to the next foreign kernel event (so a foreign process sees the models exactly at its
// own time), and so needs far fewer kernel activations than it runs wake-ups.
#include <gtest/gtest.h>

#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::SC_US;
using sc_core::sc_time;
using test::ns_ps;

namespace {
struct client : timed_client {
  std::vector<uint64_t> fired;
  std::function<void()> then;
  void on_timer() override {
    fired.push_back(now_ps());
    if (then) then();
  }
};
}  // namespace

TEST(EventQueue, AWakeUpBeforeNowIsAnError) {
  event_queue& q = event_queue::instance();
  client c;
  start(sc_time(10, SC_US));
  EXPECT_THROW(q.schedule(&c, ns_ps(5000)), sc_core::sc_report);
  EXPECT_FALSE(c.timer_pending());
  q.schedule(&c, ns_ps(10000));  // now is fine: it runs in the next delta cycle
  start(sc_time(1, SC_US));
  EXPECT_EQ(c.fired, (std::vector<uint64_t>{ns_ps(10000)}));
}

TEST(EventQueue, AWakeUpBehindTheModelsClockButAheadOfTheKernelIsAnError) {
  // While draining, the models' clock runs ahead of the kernel: at b's wake-up (2 us) the kernel
  // may still be at 1 us, so 1.5 us is in the past for the models even though it is not for
  // the kernel. It must be refused, not run out of order.
  event_queue& q = event_queue::instance();
  client a, b;
  q.schedule(&a, ns_ps(1000));
  q.schedule(&b, ns_ps(2000));
  b.then = [&] { q.schedule(&b, ns_ps(1500)); };
  EXPECT_THROW(start(sc_time(5, SC_US)), sc_core::sc_report);
  EXPECT_EQ(a.fired, (std::vector<uint64_t>{ns_ps(1000)}));
  EXPECT_EQ(b.fired, (std::vector<uint64_t>{ns_ps(2000)}));
}

namespace {
// 100 frames of 1000 B from a to b at 40 Gb/s: one starts every 200 ns and lands 1.2 us after
// it starts. One sample at the end only, so nothing else wakes the kernel.
std::unique_ptr<simulation> hundred_frames() {
  return test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 100KB, priority: 3}",
                                       "run: {until: 30us, sample_period: 30us}\n"));
}

// A foreign process with its own kernel event at 1.5 us.
struct probe : sc_core::sc_module {
  const nic &a, &b;
  uint64_t at_ps = 0, sent = 0, received = 0;
  sc_core::sc_event tick;
  probe(sc_core::sc_module_name n, const nic& a_, const nic& b_) : sc_module(n), a(a_), b(b_) {
    SC_METHOD(look);
    sensitive << tick;
    dont_initialize();
  }
  SC_HAS_PROCESS(probe);
  void start_of_simulation() override { tick.notify(sc_time(1500, SC_NS)); }
  void look() {
    at_ps = now_ps();
    sent = a.port.mac.frames_sent();
    received = b.frames_received();
  }
};
}  // namespace

TEST(EventQueue, AForeignProcessSeesTheModelsExactlyAtItsTime) {
  auto sim = hundred_frames();
  probe p("probe", *sim->fabric_model().nics[0], *sim->fabric_model().nics[1]);
  sim->run();
  EXPECT_EQ(p.at_ps, ns_ps(1500));
  EXPECT_EQ(p.sent, 8u);      // started at 0, 0.2, ..., 1.4 us
  EXPECT_EQ(p.received, 2u);  // landed at 1.2 and 1.4 us
  EXPECT_EQ(sim->fabric_model().nics[1]->frames_received(), 100u);
}

TEST(EventQueue, KernelActivationsAreFarFewerThanWakeUps) {
  auto sim = hundred_frames();
  sim->run();
  // Each frame needs at least two wake-ups (the end of its serialization at a's MAC, its
  // arrival at the end of the link's delay line): 200 or more in all.
  EXPECT_EQ(sim->fabric_model().nics[1]->frames_received(), 100u);
  // With no foreign event in between, the queue drains them from one or two kernel activations
  // (one wake-up per kernel activation would need 200).
  EXPECT_LE(event_queue::instance().activations(), 4u) << event_queue::instance().activations();
}
