// One clock: the timer queue rejects wake-ups in the models' past, drains ahead of the kernel
// only up to the next foreign kernel event (so a foreign process sees the models exactly at its
// own time), and so needs far fewer kernel activations than it runs wake-ups.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "tests/support/mac_bench.h"
#include "tests/support/switch_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;
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

// The calendar (1.024 ns buckets over 16.8 us, far lists and a heap beyond) keeps one order: by
// time, then by the time each wake-up was scheduled, then by its client's order key (clients
// made outside any order_scope: in the order they were made).
namespace {
struct recorder : timed_client {
  std::vector<std::string>& log;
  std::string name;
  std::function<void()> then;
  recorder(std::vector<std::string>& l, std::string n) : log(l), name(std::move(n)) {}
  void on_timer() override {
    log.push_back(name + "@" + std::to_string(now_ps()));
    if (then) then();
  }
};
}  // namespace

TEST(EventQueue, OneBucketRunsByTimeThenScheduleOrder) {
  // Ten wake-ups inside one 1.024 ns bucket, scheduled latest first: they run earliest first.
  // Two more at 1000 ps, scheduled in the same picosecond as the rest: they run in key order
  // (the order their clients were made).
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  std::vector<std::unique_ptr<recorder>> c;
  for (int i = 0; i < 12; ++i) c.push_back(std::make_unique<recorder>(log, "c" + std::to_string(i)));
  for (int i = 0; i < 10; ++i) q.schedule(c[i].get(), 1009 - i);  // c0 at 1009 ps ... c9 at 1000 ps
  q.schedule(c[10].get(), 1000);
  q.schedule(c[11].get(), 1000);
  start(sc_time(1, SC_US));
  EXPECT_EQ(log, (std::vector<std::string>{"c9@1000", "c10@1000", "c11@1000", "c8@1001", "c7@1002", "c6@1003",
                                           "c5@1004", "c4@1005", "c3@1006", "c2@1007", "c1@1008", "c0@1009"}));
}

TEST(EventQueue, AWakeUpBeyondTheCalendarKeepsItsPlaceAmongTies) {
  // a is scheduled at time 0 for 20 us, beyond the calendar (16.8 us): it waits in a far list.
  // x runs at 10 us and schedules b for 20 us (now inside the calendar) and d for 19.999 us.
  // a was scheduled first, so at 20 us it runs before b; d runs before both.
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  recorder a(log, "a"), b(log, "b"), d(log, "d"), x(log, "x");
  q.schedule(&a, ns_ps(20000));
  q.schedule(&x, ns_ps(10000));
  x.then = [&] {
    q.schedule(&b, ns_ps(20000));
    q.schedule(&d, ns_ps(19999));
  };
  start(sc_time(30, SC_US));
  EXPECT_EQ(log, (std::vector<std::string>{"x@10000000", "d@19999000", "a@20000000", "b@20000000"}));
}

TEST(EventQueue, AWakeUpMovedEarlierRunsOnceAndALaterOneIsIgnored) {
  // a: 5 us, then 2 us (moves it up: the 5 us entry is left behind, stale), then 7 us (ignored:
  // the 2 us wake-up stands). It runs once, at 2 us; b at 6 us shows the drain went past 5 us.
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  recorder a(log, "a"), b(log, "b");
  q.schedule(&a, ns_ps(5000));
  q.schedule(&a, ns_ps(2000));
  q.schedule(&a, ns_ps(7000));
  EXPECT_EQ(q.pending_at(&a), ns_ps(2000));
  q.schedule(&b, ns_ps(6000));
  EXPECT_EQ(q.pending(), 2u);
  start(sc_time(10, SC_US));
  EXPECT_EQ(log, (std::vector<std::string>{"a@2000000", "b@6000000"}));
  EXPECT_EQ(q.pending(), 0u);
  EXPECT_FALSE(a.timer_pending());
}

TEST(EventQueue, AClientDestroyedWithAWakeUpPendingIsNotCalled) {
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  auto gone = std::make_unique<recorder>(log, "gone");
  recorder b(log, "b");
  q.schedule(gone.get(), ns_ps(1000));
  q.schedule(&b, ns_ps(2000));
  gone.reset();
  EXPECT_EQ(q.pending(), 1u);
  start(sc_time(5, SC_US));
  EXPECT_EQ(log, (std::vector<std::string>{"b@2000000"}));
}

TEST(EventQueue, WakeUpsInTheHeapMovedEarlierOrDestroyedLeaveNothingBehind) {
  // Beyond 4.3 ms wake-ups wait in a heap. A client's node is its own from its first schedule
  // to its destruction: a wake-up moved earlier, within the heap or out of it into the calendar,
  // leaves no entry behind, and a destroyed client's node, taken by a client made after it,
  // carries only that client's wake-up, once.
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  recorder a(log, "a"), b(log, "b");
  auto gone = std::make_unique<recorder>(log, "gone");
  q.schedule(&a, ns_ps(6000000));
  q.schedule(gone.get(), ns_ps(5000000));
  q.schedule(&b, ns_ps(5500000));
  q.schedule(&a, ns_ps(5200000));  // earlier, still in the heap
  EXPECT_EQ(q.pending(), 3u);
  gone.reset();
  EXPECT_EQ(q.pending(), 2u);
  recorder late(log, "late");  // the destroyed client's node
  q.schedule(&late, ns_ps(5000000));
  q.schedule(&b, ns_ps(3000));  // out of the heap, into the calendar
  q.schedule(&late, ns_ps(5100000));
  EXPECT_EQ(q.pending(), 3u);
  start(sc_time(7, sc_core::SC_MS));
  EXPECT_EQ(log, (std::vector<std::string>{"b@3000000", "late@5000000000", "a@5200000000"}));
  EXPECT_EQ(q.pending(), 0u);
}

namespace {
// Records, in one shared log, when it is warmed and when it fires.
struct warmed_client : timed_client {
  std::vector<std::string>* log = nullptr;
  std::string name;
  void on_timer() override { log->push_back("fire " + name); }
  void warm() const override { log->push_back("warm " + name); }
  void warm_more() const override { log->push_back("more " + name); }
};

// Idle clients that make a fabric large enough for the drain to warm clients ahead.
struct idle_client : timed_client {
  void on_timer() override {}
};
}  // namespace

TEST(EventQueue, AClientIsWarmedTwoWakeUpsBeforeItRunsAndFurtherOneBefore) {
  // Five wake-ups in one calendar bucket, among enough live clients for a large fabric. Inside a
  // bucket, as a wake-up starts, the client one on is warmed further (warm_more) and the client
  // two on is warmed (prefetch hints only: they must not change the order of wake-ups).
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  warmed_client c[5];
  const std::vector<idle_client> large(event_queue::warm_ahead_clients);
  for (int i = 0; i < 5; ++i) {
    c[i].log = &log;
    c[i].name = std::to_string(i);
    q.schedule(&c[i], ns_ps(1000) + static_cast<uint64_t>(i) * 100);  // 100 ps apart
  }
  start(sc_time(2, SC_US));
  EXPECT_EQ(log, (std::vector<std::string>{"fire 0", "more 2", "warm 3", "fire 1", "more 3", "warm 4", "fire 2",
                                           "more 4", "fire 3", "fire 4"}))
      << "order: " << ::testing::PrintToString(log);
}

TEST(EventQueue, ASmallFabricsClientsAreNotWarmed) {
  // The same five wake-ups with few clients alive: they stay in the caches, none is warmed.
  ASSERT_LT(timed_client::live() + 5, event_queue::warm_ahead_clients);
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  warmed_client c[5];
  for (int i = 0; i < 5; ++i) {
    c[i].log = &log;
    c[i].name = std::to_string(i);
    q.schedule(&c[i], now_ps() + ns_ps(1000) + static_cast<uint64_t>(i) * 100);
  }
  start(sc_time(2, SC_US));
  EXPECT_EQ(log, (std::vector<std::string>{"fire 0", "fire 1", "fire 2", "fire 3", "fire 4"}))
      << "order: " << ::testing::PrintToString(log);
}

TEST(EventQueue, SyncEndsTheDrainAfterTheCurrentWakeUp) {
  // Three wake-ups at 1, 2 and 3 us with nothing foreign: one drain from the kernel's 1 us would
  // run them all, the models up to 2 us ahead. With sync() at 2 us the drain ends there (a
  // foreign process notified for 2 us would run before any later model activity), and the next
  // activation comes with the kernel at 3 us.
  event_queue& q = event_queue::instance();
  client a, b, c;
  std::vector<uint64_t> ahead, kernel;
  auto look = [&] {
    ahead.push_back(ahead_ps());
    kernel.push_back(kernel_ps());
  };
  a.then = look;
  b.then = [&] {
    look();
    q.sync();
  };
  c.then = look;
  q.schedule(&a, ns_ps(1000));
  q.schedule(&b, ns_ps(2000));
  q.schedule(&c, ns_ps(3000));
  start(sc_time(5, SC_US));
  EXPECT_EQ(ahead, (std::vector<uint64_t>{0, ns_ps(1000), 0}));
  EXPECT_EQ(kernel, (std::vector<uint64_t>{ns_ps(1000), ns_ps(1000), ns_ps(3000)}));
  EXPECT_EQ(c.fired, (std::vector<uint64_t>{ns_ps(3000)}));
}

TEST(EventQueue, TiesScheduledInOnePicosecondRunInKeyOrderNotInScheduleOrder) {
  // A partition of the fabric schedules in another global order than the whole fabric does
  // (docs/parallel.md): ties must not depend on it. p (node 1) and q (node 2) are due at 5 ns,
  // scheduled at time 0 with q first: p runs first. r, scheduled later (at 1 ns) for 5 ns, runs
  // after both whatever its key.
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  std::unique_ptr<recorder> r = std::make_unique<recorder>(log, "r"), x = std::make_unique<recorder>(log, "x");
  std::unique_ptr<recorder> p, qq;
  {
    const order_scope node2(3);
    qq = std::make_unique<recorder>(log, "q");
  }
  {
    const order_scope node1(2);
    p = std::make_unique<recorder>(log, "p");
  }
  EXPECT_LT(p->order_key(), qq->order_key());
  q.schedule(qq.get(), ns_ps(5));
  q.schedule(p.get(), ns_ps(5));
  q.schedule(x.get(), ns_ps(1));
  x->then = [&] { q.schedule(r.get(), ns_ps(5)); };
  start(sc_time(10, SC_NS));
  EXPECT_EQ(log, (std::vector<std::string>{"x@1000", "p@5000", "q@5000", "r@5000"}));
}

TEST(EventQueue, AClientsKeyDependsOnlyOnItsOwnerAndItsPlaceAmongTheOwnersClients) {
  // A scope opened again for an owner goes on counting; other owners' clients do not shift it.
  std::vector<std::string> log;
  recorder before(log, "outside");
  uint64_t first, second;
  {
    const order_scope a(7);
    recorder one(log, "one");
    first = one.order_key();
  }
  {
    const order_scope b(8);
    recorder other(log, "other");
  }
  {
    const order_scope a(7);
    recorder two(log, "two");
    second = two.order_key();
  }
  EXPECT_EQ(first, uint64_t{7} << 32);
  EXPECT_EQ(second, (uint64_t{7} << 32) + 1);
  EXPECT_LT(before.order_key(), first);  // outside any scope: owner 0
}

TEST(EventQueue, AClientMadeByARunningWakeUpTakesAKeyDerivedFromIt) {
  // Made while the queue drains (a lazily made pause watcher, say): keyed by its maker's key and
  // how many the maker made before, so the same in every partition that holds the maker.
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  recorder maker(log, "maker");
  std::vector<uint64_t> keys;
  std::vector<std::unique_ptr<recorder>> made;
  maker.then = [&] {
    for (int i = 0; i < 2; ++i) {
      made.push_back(std::make_unique<recorder>(log, "made"));
      keys.push_back(made.back()->order_key());
    }
  };
  q.schedule(&maker, ns_ps(1));
  start(sc_time(2, SC_NS));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_NE(keys[0], keys[1]);
  recorder outside(log, "outside");  // not running: owner 0's next
  EXPECT_EQ(outside.order_key() >> 32, 0u);
  EXPECT_NE(keys[0] >> 32, 0u);  // a mixed key, not owner 0's count
}

namespace {
constexpr uint64_t calendar_span_ps = uint64_t{1} << 24;  // 16 384 buckets of 1.024 ns: 16.8 us
constexpr uint64_t period_ps = calendar_span_ps / 2;      // a far list's period: half the calendar

// Checks every wake-up against the order the queue promises, kept apart in a std::map: (time,
// time scheduled, key), one pending wake-up per client, a later schedule ignored, an earlier one
// replacing it (the queue takes the replaced entry out), none for a client destroyed. Counts the
// far wake-ups (beyond the calendar's span when scheduled) that ran and those replaced before
// their time, and the wake-ups of destroyed clients: in the calendar, far, beyond the far lists.
struct oracle {
  using place = std::tuple<uint64_t, uint64_t, uint64_t>;  // time, ~lead (earlier schedule first), key
  std::map<place, timed_client*> order;
  std::map<const timed_client*, place> pending;
  uint64_t runs = 0, mistakes = 0, far_runs = 0, far_replaced = 0, pending_mistakes = 0;
  uint64_t destroyed[3] = {0, 0, 0};
  bool as_of = false;           // schedule through schedule_as_of(c, at_ps, now_ps()), the general path
  std::vector<uint64_t> times;  // of every wake-up run, from the first's schedule
  uint64_t first = 0;
  void schedule(timed_client* c, uint64_t at_ps) {
    if (as_of)
      event_queue::instance().schedule_as_of(c, at_ps, now_ps());
    else
      event_queue::instance().schedule(c, at_ps);
    const auto was = pending.find(c);
    if (was != pending.end() && std::get<0>(was->second) <= at_ps) return;
    if (was != pending.end()) {
      if (std::get<0>(was->second) - now_ps() >= calendar_span_ps) ++far_replaced;
      order.erase(was->second);
    }
    const uint64_t lead = std::min<uint64_t>(at_ps - now_ps(), std::numeric_limits<uint32_t>::max());
    const place p{at_ps, ~lead, c->order_key()};
    order[p] = c;
    pending[c] = p;
  }
  void destroying(const timed_client* c) {
    const auto was = pending.find(c);
    if (was == pending.end()) return;
    const uint64_t ahead = std::get<0>(was->second) - now_ps();
    ++destroyed[ahead < calendar_span_ps / 2 ? 0 : ahead < ns_ps(4000000) ? 1 : 2];
    order.erase(was->second);
    pending.erase(was);
  }
  void ran(timed_client* c) {
    ++runs;
    times.push_back(now_ps() - first);
    if (order.empty() || order.begin()->second != c || std::get<0>(order.begin()->first) != now_ps()) ++mistakes;
    if (const auto was = pending.find(c); was != pending.end()) {
      if (~std::get<1>(was->second) >= calendar_span_ps) ++far_runs;
      order.erase(was->second);
      pending.erase(was);
    }
    // The queue counts its pending wake-ups when asked (nodes not free, less the heap's taken out).
    if (runs % 8 == 0 && event_queue::instance().pending() != pending.size()) ++pending_mistakes;
  }
};

// Each wake-up schedules up to three clients: at now, in this or the next nanosecond bucket (ties
// and entries placed before a bucket's tail), a few nanoseconds on, about the calendar's span
// (16.8 us), in the far lists (a whole microsecond up to 5 ms on: ties among them; or the first
// picosecond of a period or the last before it), or beyond the 4.3 ms a lead can tell apart. With
// far_only, all but one in ten go beyond the calendar's span, so the calendar is often empty and
// the next wake-up comes straight from a far list or the heap; the rest, at now, replace the far
// wake-ups of the clients they pick. With churn, one wake-up in ten also destroys another
// client, whatever it has pending, and puts a new one in its place.
struct random_client : timed_client {
  oracle* check = nullptr;
  std::vector<std::unique_ptr<random_client>>* all = nullptr;
  std::mt19937_64* rng = nullptr;
  uint64_t last_run = 0;
  bool far_only = false, churn = false;
  uint64_t far_ahead() {
    const uint64_t r = (*rng)() % 10;
    if (r < 6) return ns_ps(1000) * (8 + (*rng)() % 5000);  // 8 us to 5 ms, on whole microseconds
    const uint64_t now = now_ps();
    const uint64_t edge = (now / period_ps + 1 + (*rng)() % 600) * period_ps - (r < 8 ? 0 : 1);
    return edge - now;
  }
  void on_timer() override {
    check->ran(this);
    if (check->runs > last_run) return;
    if (churn && (*rng)() % 10 == 0) {
      std::unique_ptr<random_client>& other = (*all)[(*rng)() % all->size()];
      if (other.get() != this) {
        check->destroying(other.get());
        other = std::make_unique<random_client>(*this);  // a copy is a client of its own, none pending
      }
    }
    const int k = static_cast<int>((*rng)() % 4);
    for (int i = 0; i < k; ++i) {
      random_client* other = (*all)[(*rng)() % all->size()].get();
      const uint64_t r = (*rng)() % 100;
      uint64_t ahead;
      if (far_only)
        ahead = r < 10 ? 0 : r < 98 ? far_ahead() : ns_ps(4500000);
      else
        ahead = r < 10   ? 0
                : r < 65 ? (*rng)() % 2048
                : r < 88 ? (*rng)() % 20000
                : r < 92 ? ns_ps(16000) + (*rng)() % ns_ps(4000)
                : r < 99 ? far_ahead()
                         : ns_ps(4500000);
      check->schedule(other, now_ps() + ahead);
    }
  }
};

// Runs `clients` random clients until `last_run` wake-ups have run and every one they promised
// after; they start as a burst into one bucket burst_ps on, in reverse order (more than a
// bucket's list walks before it gives up and sorts the bucket when its turn comes). Every
// wake-up must run in its promised order.
void run_random_clients(oracle& check, int clients, uint64_t seed, bool far_only, uint64_t last_run, uint64_t burst_ps,
                        bool churn = false) {
  std::mt19937_64 rng(seed);
  const uint64_t first = now_ps();  // the start of this run (a test may run two)
  check.first = first;
  std::vector<std::unique_ptr<random_client>> all;
  for (int i = 0; i < clients; ++i) {
    all.push_back(std::make_unique<random_client>());
    all.back()->check = &check;
    all.back()->all = &all;
    all.back()->rng = &rng;
    all.back()->far_only = far_only;
    all.back()->churn = churn;
    all.back()->last_run = last_run;
  }
  for (int i = clients - 1; i >= 0; --i)
    check.schedule(all[static_cast<std::size_t>(i)].get(), first + burst_ps + (i % 7));
  start(sc_time(10, sc_core::SC_SEC));
  EXPECT_GT(check.runs, last_run);
  EXPECT_EQ(check.mistakes, 0u);
  EXPECT_EQ(check.pending_mistakes, 0u);
  EXPECT_TRUE(check.order.empty());
  EXPECT_EQ(event_queue::instance().pending(), 0u);
}

// Runs the kernel to the next multiple of 2^34 ps (17 ms), beyond the far lists' reach: two runs
// started there meet the calendar alike.
void start_aligned() {
  const uint64_t align = uint64_t{1} << 34;
  start(sc_time(static_cast<double>(align - now_ps() % align), sc_core::SC_PS));
}
}  // namespace

TEST(EventQueue, RandomSchedulesRunInTheirPromisedOrder) {
  // 40 000 wake-ups of 200 clients, checked one by one against the oracle, from a burst of 200.
  // Far wake-ups are few and most are replaced by an earlier one before their time, as a paused
  // MAC's are.
  oracle check;
  run_random_clients(check, 200, 23, false, 40000, 1000);
  EXPECT_GT(check.far_runs, 10u);
  EXPECT_GT(check.far_replaced, 2000u);
}

TEST(EventQueue, RandomFarWakeUpsRunInTheirPromisedOrder) {
  // 20 000 wake-ups of 60 clients, nearly all scheduled beyond the calendar's span: through the
  // far lists (moved into the calendar a period ahead, or the next wake-up taken from one while
  // the calendar is empty) and the heap beyond them (moved into the far lists as they reach it),
  // many replaced by an earlier wake-up before their time. The first burst is 100 us ahead: in a
  // far list, and its bucket is sorted once moved into the calendar.
  oracle check;
  run_random_clients(check, 60, 24, true, 20000, ns_ps(100000));
  EXPECT_GT(check.far_runs, 10000u);
  EXPECT_GT(check.far_replaced, 1000u);
}

TEST(EventQueue, RandomSchedulesWithClientsDestroyedRunInTheirPromisedOrder) {
  // As above, near and far, while one wake-up in ten destroys another client: its pending
  // wake-up, in the calendar, a far list or the heap, goes with it and nothing else moves.
  oracle near, far;
  run_random_clients(near, 200, 25, false, 40000, 1000, true);
  run_random_clients(far, 60, 26, true, 20000, ns_ps(100000), true);
  EXPECT_GT(near.destroyed[0], 500u);
  EXPECT_GT(near.destroyed[1] + far.destroyed[1], 500u);
  EXPECT_GT(far.destroyed[2], 10u);
}

TEST(EventQueue, RandomSchedulesAsOfNowRunAsSchedulesDo) {
  // schedule() takes its lead from the models' clock on a path of its own (one unsigned test
  // sends the past, a schedule outside a drain and leads beyond 4.3 ms to the slow path);
  // schedule_as_of() given now_ps() takes the general path. The same random runs, near and far
  // (no clients destroyed: a client made by a wake-up takes a key derived from the running one's,
  // which differs between the runs), must run the same wake-ups at the same times, each in its
  // promised order.
  oracle fast[2], general[2];
  general[0].as_of = general[1].as_of = true;
  for (oracle* o : {fast, general}) {
    start_aligned();
    run_random_clients(o[0], 200, 27, false, 30000, 1000);
    start_aligned();
    run_random_clients(o[1], 60, 28, true, 15000, ns_ps(100000));
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(fast[i].runs, general[i].runs);
    EXPECT_TRUE(fast[i].times == general[i].times) << "run " << i;
  }
}

TEST(EventQueue, AWakeUpAtNeverIsNone) {
  // schedule()'s inline test returns for any time not earlier than the pending one; with none
  // pending that is never_ps, so a wake-up at never_ps is none, and leaves a pending one alone.
  event_queue& q = event_queue::instance();
  client a;
  q.schedule(&a, never_ps);
  EXPECT_FALSE(a.timer_pending());
  EXPECT_EQ(q.pending(), 0u);
  q.schedule(&a, ns_ps(5));
  q.schedule(&a, never_ps);
  EXPECT_EQ(q.pending_at(&a), ns_ps(5));
  start(sc_time(1, SC_US));
  EXPECT_EQ(a.fired, (std::vector<uint64_t>{ns_ps(5)}));
  EXPECT_EQ(q.pending(), 0u);
}

TEST(EventQueue, ABucketOutOfOrderRunsInOrderAndTakesLaterEntriesInOrder) {
  // Forty wake-ups into one 1.024 ns bucket, latest first (beyond the list walk: the bucket is
  // sorted when its turn comes). Its first wake-up then schedules two more into it: one before
  // the rest (at now) and one among them.
  event_queue& q = event_queue::instance();
  std::vector<std::string> log;
  std::vector<std::unique_ptr<recorder>> c;
  for (int i = 0; i < 42; ++i) c.push_back(std::make_unique<recorder>(log, "c" + std::to_string(i)));
  for (int i = 0; i < 40; ++i)
    q.schedule(c[static_cast<std::size_t>(i)].get(), 2000 + 39 - static_cast<uint64_t>(i) / 2);
  c[39]->then = [&] {
    q.schedule(c[40].get(), 2020);
    q.schedule(c[41].get(), 2030);
  };
  start(sc_time(1, SC_US));
  std::vector<std::string> want;
  // c38 and c39 at 2020 ps (c38 made first); then c40, scheduled at 2020 for 2020 (a lead of 0).
  for (int t = 2020; t <= 2039; ++t) {
    const int i = 2 * (2039 - t);
    want.push_back("c" + std::to_string(i) + "@" + std::to_string(t));
    want.push_back("c" + std::to_string(i + 1) + "@" + std::to_string(t));
    if (t == 2020) want.push_back("c40@2020");
    if (t == 2030) want.push_back("c41@2030");
  }
  EXPECT_EQ(log, want);
}

namespace {
// A synchronized fabric's pattern (a 1 024-host leaf-spine, every link alike): the thousands of
// wake-ups due at one time each schedule another client at one later time, in the order they
// run, so the later bucket fills in a few ascending runs of keys, far beyond the list walk,
// and is sorted by merging its runs when its turn comes.
struct relay : timed_client {
  oracle* check = nullptr;
  std::vector<std::unique_ptr<relay>>* all = nullptr;
  std::size_t next = 0;
  uint64_t spread = 0;               // picoseconds after the common time: some entries differ within the bucket
  std::mt19937_64* churn = nullptr;  // if set: take entries out of the buckets being filled
  void on_timer() override {
    check->ran(this);
    if (check->runs >= 20000) return;
    check->schedule((*all)[next].get(), now_ps() + 5000 + spread);
    if (!churn || (*churn)() % 4 != 0) return;
    // Another client's pending wake-up, most likely in the bucket being filled out of order, is
    // moved earlier or goes with its client (a copy takes its place, with a key of its own).
    std::unique_ptr<relay>& other = (*all)[(*churn)() % all->size()];
    if (other.get() == this) return;
    if ((*churn)() % 2 == 0) {
      check->schedule(other.get(), now_ps() + (*churn)() % 5000);
    } else {
      check->destroying(other.get());
      other = std::make_unique<relay>(*other);
    }
  }
};

// 2 000 relays, client i handing over to (i * 37) % n (37 runs of ascending keys a bucket), half
// of them started at one time; they run until 20 000 wake-ups have run, each checked.
void run_relays(oracle& check, std::mt19937_64* churn) {
  const std::size_t n = 2000;
  std::vector<std::unique_ptr<relay>> all;
  for (std::size_t i = 0; i < n; ++i) all.push_back(std::make_unique<relay>());
  for (std::size_t i = 0; i < n; ++i) {
    all[i]->check = &check;
    all[i]->all = &all;
    all[i]->next = (i * 37) % n;
    all[i]->spread = i % 11 == 0 ? i % 3 : 0;
    all[i]->churn = churn;
  }
  check.first = now_ps();
  for (std::size_t i = 0; i < n; i += 2) check.schedule(all[i].get(), now_ps() + 1000);
  start(sc_time(10, sc_core::SC_SEC));
  EXPECT_GE(check.runs, 20000u);
  EXPECT_EQ(check.mistakes, 0u);
  EXPECT_EQ(check.pending_mistakes, 0u);
  EXPECT_TRUE(check.order.empty());
}
}  // namespace

TEST(EventQueue, ASynchronizedBurstInAFewRunsOfKeysRunsInOrder) {
  oracle check;
  run_relays(check, nullptr);
}

TEST(EventQueue, EntriesTakenOutOfABucketOfRunsLeaveItInOrder) {
  // As above, while one wake-up in four moves another client's pending wake-up earlier or
  // destroys that client: entries leave buckets filled in runs, the first of a run among them
  // (the next entry then begins the run), before the bucket is merged.
  oracle check;
  std::mt19937_64 churn(29);
  run_relays(check, &churn);
  EXPECT_GT(check.destroyed[0], 500u);
}

TEST(EventQueue, WakeUpsWarmedAheadRunAsUnwarmedOnes) {
  // The drain runs a bucket in one of two copies, warming the clients ahead (a large fabric) or
  // not (a small one). The random runs, near and far, and the synchronized relays (large buckets
  // merged from runs), once among few live clients and once among warm_ahead_clients more, must
  // run the same wake-ups at the same times, each in its promised order.
  oracle plain[3], warmed[3];
  for (oracle* o : {plain, warmed}) {
    const std::vector<idle_client> large(o == warmed ? event_queue::warm_ahead_clients : 0);
    ASSERT_EQ(timed_client::live() >= event_queue::warm_ahead_clients, o == warmed);
    start_aligned();
    run_random_clients(o[0], 200, 30, false, 30000, 1000);
    start_aligned();
    run_random_clients(o[1], 60, 31, true, 15000, ns_ps(100000));
    start_aligned();
    run_relays(o[2], nullptr);
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(plain[i].runs, warmed[i].runs);
    EXPECT_TRUE(plain[i].times == warmed[i].times) << "run " << i;
  }
}
