// Window partitions (event_queue::run_in_windows, docs/parallel.md): one calendar per partition;
// in each window every partition's wake-ups run in turn, each partition's in the order the whole
// queue gives them; the frames of a window are delivered after it; what needs the whole fabric
// at one model time is refused. (Each test is a process of its own: the windows stay set.)
#include <gtest/gtest.h>

#include <string>
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
      2, ns_ps(1000), [](uint64_t key) { return key >> 32 == 2 ? 1u : 0u; }, [](uint32_t) {});
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
      2, ns_ps(1000), [](uint64_t key) { return key >> 32 == 2 ? 1u : 0u; },
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
  try {
    start(sc_time(3, SC_US));
    FAIL() << "no error";
  } catch (const sc_core::sc_report& e) {
    EXPECT_NE(std::string(e.what()).find("window partitions: a wake-up of another partition's model"),
              std::string::npos)
        << e.what();
  }
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
