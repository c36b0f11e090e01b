// Window partitions (event_queue::run_in_windows, docs/parallel.md): one calendar per partition;
// in each window every partition's wake-ups run in turn, each partition's in the order the whole
// queue gives them; the frames of a window are delivered after it; what needs the whole fabric
// at one model time is refused. (Each test is a process of its own: the windows stay set.)
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
using log_t = std::vector<std::pair<std::string, uint64_t>>;

struct client : timed_client {
  client(std::string n, log_t& l) : name(std::move(n)), log(l) {}
  std::string name;
  log_t& log;
  std::function<void()> then;
  void on_timer() override {
    log.emplace_back(name, now_ps());
    if (then) then();
  }
};

// Owner 1's clients in partition 0, owner 2's in partition 1; windows of 1 us.
void use_two_partitions() {
  event_queue::instance().run_in_windows(
      2, 1, ns_ps(1000), [](uint64_t key) { return key >> 32 == 2 ? 1u : 0u; }, [](uint32_t) {});
}

// Runs 3 us, which must end with the windows' error for a zero-delay wake-up across partitions.
void expect_zero_delay_error() {
  try {
    start(sc_time(3, SC_US));
    FAIL() << "no error";
  } catch (const sc_core::sc_report& e) {
    EXPECT_NE(std::string(e.what()).find("window partitions: a wake-up of another partition's model"),
              std::string::npos)
        << e.what();
  }
}

// A client made in owner's scope (order_scope), so that its key (and partition) is owner's.
std::unique_ptr<client> make(uint64_t owner, const std::string& name, log_t& log) {
  const order_scope scope(owner);
  return std::make_unique<client>(name, log);
}
}  // namespace

TEST(EventQueueWindows, EachPartitionRunsItsWindowInTurnItsClockGoingBack) {
  use_two_partitions();
  event_queue& q = event_queue::instance();
  log_t log;
  auto a = make(1, "a", log), a2 = make(1, "a2", log), a3 = make(1, "a3", log);
  auto b = make(2, "b", log), b2 = make(2, "b2", log);
  q.schedule(a.get(), ns_ps(300));
  q.schedule(a2.get(), ns_ps(1050));
  q.schedule(a3.get(), ns_ps(1150));  // the second window: the first began at b's 100 ns
  q.schedule(b.get(), ns_ps(100));
  q.schedule(b2.get(), ns_ps(1000));
  start(sc_time(3, SC_US));
  const log_t expected{
      {"a", ns_ps(300)}, {"a2", ns_ps(1050)}, {"b", ns_ps(100)}, {"b2", ns_ps(1000)}, {"a3", ns_ps(1150)}};
  EXPECT_EQ(log, expected);
}

// Within a partition, ties run as the whole queue runs them: the earlier scheduled first, then
// those scheduled in the same picosecond in key order; another partition's wake-ups at the same
// time run in its own turn.
TEST(EventQueueWindows, TiesInAPartitionRunAsInTheWholeQueue) {
  use_two_partitions();
  event_queue& q = event_queue::instance();
  log_t log;
  auto c1 = make(2, "c1", log), c2 = make(2, "c2", log), c3 = make(2, "c3", log), c4 = make(2, "c4", log);
  auto d = make(1, "d", log);
  q.schedule(c2.get(), ns_ps(500));
  q.schedule(c1.get(), ns_ps(500));  // c1's key is lower: it runs before c2 at 500 ns
  q.schedule(c3.get(), ns_ps(700));  // scheduled 700 ns ahead: before c4, scheduled 200 ns ahead
  q.schedule(d.get(), ns_ps(700));
  c1->then = [&] { q.schedule(c4.get(), ns_ps(700)); };
  start(sc_time(3, SC_US));
  const log_t expected{
      {"d", ns_ps(700)}, {"c1", ns_ps(500)}, {"c2", ns_ps(500)}, {"c3", ns_ps(700)}, {"c4", ns_ps(700)}};
  EXPECT_EQ(log, expected);
}

// After each window, every partition in turn gets its deliveries (a cut link's frames) with its
// calendar in use: a wake-up scheduled then runs in its partition, in a later window.
TEST(EventQueueWindows, DeliveriesComeAfterEachWindowPartitionByPartition) {
  event_queue& q = event_queue::instance();
  log_t log;
  std::vector<uint32_t> delivered;
  std::unique_ptr<client> a = make(1, "a", log), b = make(2, "b", log);
  q.run_in_windows(
      2, 1, ns_ps(1000), [](uint64_t key) { return key >> 32 == 2 ? 1u : 0u; },
      [&](uint32_t part) {
        delivered.push_back(part);
        if (part == 1 && delivered.size() == 2) q.schedule_as_of(b.get(), ns_ps(1500), ns_ps(400));
      });
  q.schedule(a.get(), ns_ps(400));
  start(sc_time(3, SC_US));
  EXPECT_EQ(log, (log_t{{"a", ns_ps(400)}, {"b", ns_ps(1500)}}));
  ASSERT_GE(delivered.size(), 4u);
  EXPECT_EQ(std::vector<uint32_t>(delivered.begin(), delivered.begin() + 4), (std::vector<uint32_t>{0, 1, 0, 1}));
}

// A model waking another partition's at zero delay, or stopping the run at its own time, needs
// the whole fabric at one time: a one-line error, not a different order.
TEST(EventQueueWindows, AZeroDelayWakeUpAcrossPartitionsIsAnError) {
  use_two_partitions();
  event_queue& q = event_queue::instance();
  log_t log;
  auto a = make(1, "a", log), b = make(2, "b", log);
  a->then = [&] { q.schedule(b.get(), now_ps()); };
  q.schedule(a.get(), ns_ps(100));
  expect_zero_delay_error();
}

TEST(EventQueueWindows, AStopAtAModelsTimeIsAnError) {
  use_two_partitions();
  event_queue& q = event_queue::instance();
  log_t log;
  auto a = make(1, "a", log);
  a->then = [&] { q.request_stop(); };
  q.schedule(a.get(), ns_ps(100));
  EXPECT_THROW(start(sc_time(3, SC_US)), sc_core::sc_report);
}

TEST(EventQueueWindows, WindowsAfterAWakeUpWasScheduledAreAnError) {
  log_t log;
  auto a = make(1, "a", log);
  event_queue::instance().schedule(a.get(), ns_ps(100));
  EXPECT_THROW(use_two_partitions(), sc_core::sc_report);
}

// On threads (run_in_windows with threads > 1): partition p runs on thread p % threads, all in the
// same window, and each partition's wake-ups run as on one thread. Owners 1 to 4 are partitions 0
// to 3; each partition's two clients wake every 300 and 700 ns (never at one time).
TEST(EventQueueWindows, OnTwoThreadsEachPartitionRunsAsOnOne) {
  event_queue& q = event_queue::instance();
  q.run_in_windows(
      4, 2, ns_ps(1000), [](uint64_t key) { return static_cast<uint32_t>((key >> 32) - 1); }, [](uint32_t) {});
  EXPECT_EQ(q.lanes(), 2u);
  log_t logs[4];
  std::thread::id threads[4];
  std::vector<std::unique_ptr<client>> clients;
  for (uint32_t part = 0; part < 4; ++part)
    for (uint64_t period : {300, 700}) {
      clients.push_back(make(part + 1, std::to_string(part) + "/" + std::to_string(period), logs[part]));
      client* c = clients.back().get();
      c->then = [c, period, part, &threads] {
        threads[part] = std::this_thread::get_id();
        event_queue::current().schedule(c, now_ps() + ns_ps(period));
      };
      q.schedule(c, ns_ps(period == 300 ? 100 : 50));
    }
  start(sc_time(10, SC_US));
  for (uint32_t part = 0; part < 4; ++part) {
    log_t expected;
    for (uint64_t a = 100, b = 50; std::min(a, b) < 10000;)
      if (a < b)
        expected.emplace_back(std::to_string(part) + "/300", ns_ps(a)), a += 300;
      else
        expected.emplace_back(std::to_string(part) + "/700", ns_ps(b)), b += 700;
    EXPECT_EQ(logs[part], expected) << "partition " << part;
  }
  EXPECT_EQ(threads[0], std::this_thread::get_id());
  EXPECT_EQ(threads[2], std::this_thread::get_id());
  EXPECT_NE(threads[1], std::this_thread::get_id());
  EXPECT_EQ(threads[1], threads[3]);
}

// A model on another thread's lane waking this thread's partition at zero delay: the same error,
// raised on its thread and reported by the kernel's, once both threads have stopped.
TEST(EventQueueWindows, AZeroDelayWakeUpFromAnotherThreadIsAnError) {
  event_queue& q = event_queue::instance();
  q.run_in_windows(
      2, 2, ns_ps(1000), [](uint64_t key) { return key >> 32 == 2 ? 1u : 0u; }, [](uint32_t) {});
  log_t log0, log1;
  auto a = make(1, "a", log0), b = make(2, "b", log1);
  b->then = [&] { event_queue::current().schedule(a.get(), now_ps()); };
  q.schedule(b.get(), ns_ps(100));
  expect_zero_delay_error();
  EXPECT_TRUE(log0.empty());
}

TEST(EventQueueWindows, MoreThreadsThanPartitionsAreAnError) {
  EXPECT_THROW(event_queue::instance().run_in_windows(
                   2, 3, ns_ps(1000), [](uint64_t) { return 0u; }, [](uint32_t) {}),
               sc_core::sc_report);
}
