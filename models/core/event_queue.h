// The models' clock and their timed wake-ups, kept in one queue behind one kernel event.
//
// Why: every frame needs two or three timed wake-ups (end of serialization, arrival, pacing).
// As separate sc_events each costs a kernel timed notification. Here every client has at most
// one pending wake-up, kept in a calendar: one bucket per nanosecond over the next 16 us (a
// bitmap finds the next busy one), so a wake-up costs O(1) however many clients are pending (a
// 1024-host fabric keeps ~8 000). Wake-ups beyond the calendar wait in unsorted lists, one per
// period of half its span, each moved into it whole a period ahead (a PFC pause's expiry,
// ~0.8 ms ahead, is usually replaced before); those beyond ~4.3 ms, in a heap. A wake-up
// replaced by an earlier one is taken out where it is. Each bucket is kept in order by (time, time
// scheduled, order key): wake-ups due at the same picosecond run in the order they were scheduled in (those scheduled
// over ~4.3 ms ahead as one), and those scheduled in the same picosecond in the order of their
// clients' keys. Never by a global count
// of schedules: a run split into partitions (docs/parallel.md) must order them as the whole
// fabric does, and a client's key comes from what it belongs to (order_scope).
//
// One clock: when the queue's kernel event fires it does not stop at the kernel's time. It
// drains every wake-up due before the next activity that is not its own (a sampler tick, a
// scenario event, an RTL clock, a Python callback: any other kernel event) and before the end
// of the current run, advancing the models' clock (`now_ps()`) itself. Kernel events therefore
// no longer scale with packets, and foreign processes still see the models exactly at their own
// times. Models read time from now_ps(), never from sc_time_stamp().
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <systemc>
#include <vector>

#include "models/core/per_thread.h"
#include "models/core/units.h"

namespace sluice {

constexpr uint64_t never_ps = std::numeric_limits<uint64_t>::max();

class event_queue;
class lane_worker;

// Hidden: every model reads these through now_ps(), and a position-independent build reaches a
// variable of default visibility through the GOT (one instruction more per read). The models
// are linked whole into each binary or Python module, so one copy per binary is the only copy.
// Per thread (per_thread.h): a windowed run's threads each have their own clock and lane.
namespace clock_detail {
// Outside a drain `now` holds idle_now, so that add's one unsigned test (at_ps - now < 2^32)
// sends a schedule from outside a drain, like one into the past, to its slow path: at_ps -
// idle_now wraps beyond 2^32 for every time before 2^63 ps (106 days) and for never_ps.
constexpr uint64_t idle_now = uint64_t{1} << 63;
SLUICE_PER_THREAD uint64_t now = idle_now;      // the models' time while draining
SLUICE_PER_THREAD uint64_t kernel = 0;          // the kernel's time during that drain
SLUICE_PER_THREAD event_queue* lane = nullptr;  // the queue (lane) this thread's models schedule on
// Inside the queue's drain (the models' clock runs ahead): read from `now`, so that a read of the
// time tests one per-thread word, not two.
inline bool draining() { return now != idle_now; }
}  // namespace clock_detail

// Counts the models keep per thread (one add on a hot path, no atomic): a windowed run's other
// lanes hand theirs to these after each window (event_queue::run_in_windows).
namespace thread_counts {
SLUICE_PER_THREAD uint64_t packet_hops = 0;  // frames delivered by links (link::packet_hops)
inline std::atomic<uint64_t> handed_packet_hops{0};
}  // namespace thread_counts

// The models' current time in picoseconds: the one place models read time from.
inline uint64_t now_ps() { return clock_detail::draining() ? clock_detail::now : sc_core::sc_time_stamp().value(); }

// How far the models' clock is ahead of the kernel's: model time - sc_time_stamp(), 0 outside
// a drain. It is the TLM-2.0 `delay` of every call that leaves the models' clock for a foreign
// SystemC process or for the kernel (a transport call to a foreign target, an sc_event
// notification): the callee sees the call at sc_time_stamp() + delay, the model time of its
// cause.
inline uint64_t ahead_ps() { return clock_detail::draining() ? clock_detail::now - clock_detail::kernel : 0; }
inline sc_core::sc_time ahead() { return from_ps(ahead_ps()); }
// The kernel's time, in picoseconds (read once per drain).
inline uint64_t kernel_ps() {
  return clock_detail::draining() ? clock_detail::kernel : sc_core::sc_time_stamp().value();
}

// Where the order keys of the timed clients constructed now come from. A key is (owner << 32 |
// n), n counting the owner's clients in construction order; the fabric opens a scope for each
// node (owner = node id + 1) and each link while it builds or configures them, so a client's
// key does not depend on which other nodes this process holds. Clients made outside any scope
// take owner 0 (the run's own processes, made alike in every partition); a client made by a
// wake-up while the queue drains takes a key derived from the running client's.
class order_scope {
 public:
  explicit order_scope(uint64_t owner);
  ~order_scope();
  order_scope(const order_scope&) = delete;
  order_scope& operator=(const order_scope&) = delete;
  static uint64_t next_key();
  // The partition of a client made now: its maker's while a wake-up runs, else not known yet.
  static uint32_t maker_part();

 private:
  uint64_t outer_;
};

class timed_client {
 public:
  timed_client() : order_(order_scope::next_key()), spawned_(0), part_(order_scope::maker_part()) { ++live_; }
  timed_client(const timed_client&)  // a copy is a client of its own
      : order_(order_scope::next_key()), spawned_(0), part_(order_scope::maker_part()) {
    ++live_;
  }
  timed_client& operator=(const timed_client&) { return *this; }
  virtual ~timed_client();
  virtual void on_timer() = 0;
  // Called as the wake-up two before this client's starts, while the queue drains a calendar
  // bucket of a large fabric (event_queue::warm_ahead_clients; its own first two lines were
  // fetched one wake-up earlier still): a client may prefetch the objects its on_timer() will
  // reach through pointers, so that a chain of dependent cache misses overlaps the wake-ups
  // before it. A hint only; it changes nothing.
  virtual void warm() const {}
  // Called as the wake-up before this client's starts, after warm() (one wake-up earlier) has
  // fetched what the client points to: prefetches one link further down that chain (a link
  // direction's head frame), whose address warm()'s lines hold. A hint only; it changes nothing.
  virtual void warm_more() const {}
  bool timer_pending() const { return at_ps_ != never_ps; }
  uint64_t order_key() const { return order_; }
  // Clients alive now: the queue warms clients ahead only for a fabric too large for the caches.
  static std::size_t live() { return live_.load(std::memory_order_relaxed); }

 private:
  friend class event_queue;
  friend class order_scope;
  static constexpr uint32_t no_node = std::numeric_limits<uint32_t>::max();
  uint64_t at_ps_ = never_ps;  // the pending wake-up
  uint64_t order_;             // ties at one time run in key order (order_scope)
  uint32_t node_ = no_node;    // the queue's node of this client, from its first schedule on (event_queue::node)
  // Clients this one made while running (their keys derive from order_), and with windows
  // (event_queue::run_in_windows) the partition whose calendar holds its wake-ups: in one word,
  // so that the client stays 32 bytes (half a line).
  uint32_t spawned_ : 24;
  uint32_t part_ : 8;
  static constexpr uint32_t no_part = 255;          // part_ not known yet: found at its first schedule
  static inline std::atomic<std::size_t> live_{0};  // atomic: a windowed run's threads make and end clients
};

class event_queue : public sc_core::sc_module {
 public:
  // The simulation's queue, created on first use (during elaboration); on a windowed run's
  // worker thread, that thread's lane (run_in_windows).
  static event_queue& instance() {
    if (event_queue* q = clock_detail::lane) return *q;
    return make_first();
  }
  // The queue of this thread once one exists: what models schedule on (no test of a first use).
  static event_queue& current() { return *clock_detail::lane; }
  // Calls client->on_timer() at absolute time at_ps, or earlier if the client already has an
  // earlier wake-up pending (a client has at most one). A time before now is a model error.
  // A wake-up at never_ps is none.
  void schedule(timed_client* client, uint64_t at_ps) {
    // Inline: many calls find a wake-up pending no later and change nothing (one that is pending
    // is never in the past, so the check for a time in the past can wait for add; with none
    // pending, at_ps_ is never_ps, which only never_ps reaches). add reads the clock itself.
    if (client->at_ps_ <= at_ps) return;
    add(client, at_ps);
  }
  // As schedule, ordered among ties as if scheduled at sched_ps (<= now): for a partition's copy
  // of a link whose transmitter is in another process, which learns of a frame later than the
  // whole fabric's link would have scheduled its arrival (docs/parallel.md).
  void schedule_as_of(timed_client* client, uint64_t at_ps, uint64_t sched_ps) {
    if (client->at_ps_ <= at_ps) return;
    add_as_of(client, at_ps, sched_ps);
  }
  // The wake-up time pending for `client`, never_ps if none.
  uint64_t pending_at(const timed_client* client) const { return client->at_ps_; }
  std::size_t pending() const;
  // Bounds the drain: no wake-up at or after end_ps runs inside the current sc_start. Without a
  // bound the queue never runs ahead of the kernel (see sluice::start).
  void set_end(uint64_t end_ps) { end_ps_ = end_ps; }
  // Stops the simulation at the models' current time (sc_stop once the kernel has caught up).
  void request_stop();
  // Ends the drain after the current wake-up, so that the kernel reaches the models' time
  // before any later model activity: for an adapter whose foreign process (an sc_event's
  // listener, an RTL block, firmware) must act at the model time of its cause, before the
  // models move on. The queue resumes at that time. Outside a drain, nothing to do.
  void sync() {
    if (in_partition_drain_) refuse_in_window("an adapter's sync (a foreign process at a model's time)");
    if (running_) drain_end_ = 0;
  }
  // Runs the models in windows of window_ps, on one calendar per partition (docs/parallel.md,
  // windows): in each window every partition's wake-ups in turn, then `deliver(p)` for each
  // partition p with its calendar in use (a cut link's frames shipped in the window are accepted
  // then: they land at or after the window's end). part_of(key) gives the partition of a client
  // made outside a wake-up from its order key. Before anything is scheduled. With threads > 1,
  // partition p is drained and delivered on thread p % threads (this one for 0), each thread
  // with a lane of its own (a calendar per partition, its own nodes), all in the same window.
  void run_in_windows(uint32_t parts, uint32_t threads, uint64_t window_ps, std::function<uint32_t(uint64_t)> part_of,
                      std::function<void(uint32_t)> deliver);
  // The lane of this thread (0: the first queue's) and how many the run has.
  uint32_t lane_index() const { return lane_index_; }
  uint32_t lanes() const { return static_cast<uint32_t>(first_->lanes_.size()); }
  // Kernel activations of the queue (a measure of the one-clock saving).
  uint64_t activations() const { return activations_; }
  // With windows: the windows run, the wall time of their steps (each ends when every lane's
  // does), and each lane's wall time at work in them (lane 0 first): a lane's busy share shows
  // how evenly its partitions weigh against the others'.
  uint64_t windows_run() const { return first_->window_count_; }
  double window_steps_s() const { return static_cast<double>(first_->steps_ns_) * 1e-9; }
  std::vector<double> lanes_busy_s() const;
  // From this many live clients on, a drain warms the clients ahead in a bucket (timed_client::
  // warm()): a few thousand clients' hot lines (~200 bytes each) outgrow the L1 and L2 caches.
  // Below, they stay cached and the walk ahead would cost ~8 instructions a wake-up for nothing.
  static constexpr std::size_t warm_ahead_clients = 2048;

 private:
  // A wake-up as queued: one per client with a wake-up pending (rescheduling a client earlier
  // or destroying it takes its entry out, so the drain never meets one that must not run), in
  // the client's node (below). It holds its order within its bucket, not its time: a bucket's
  // entries are ordered by (time, lead descending, the client's order key) from the node alone,
  // so that sorting a large bucket reads no client (a cache miss each on a large fabric); the
  // time itself is the client's at_ps_, which its wake-up reads beside its vptr.
  struct entry {
    // at_ps << 32 | ~lead: a bucket's times differ only in their low 32 bits (its 1.024 ns
    // divide 2^32 ps), and the lead is how long before at_ps it was scheduled, at most ~4.3 ms
    // (wake-ups scheduled longer ahead tie on it: still the same in every partition).
    uint64_t time_lead;
    uint64_t order;        // the client's order key (keys of queued entries differ), copied with client
    timed_client* client;  // the node's client, for as long as it lives (nullptr: a free node)
    // Within one bucket (or between entries of one time).
    bool before(const entry& o) const { return time_lead != o.time_lead ? time_lead < o.time_lead : order < o.order; }
  };
  // The heap keeps each entry's key beside its node.
  struct heap_item {
    uint64_t at_ps, order;
    uint32_t lead, node;
    bool before(const heap_item& o) const {
      return at_ps != o.at_ps ? at_ps < o.at_ps : lead != o.lead ? lead > o.lead : order < o.order;
    }
  };
  static bool later(const heap_item& a, const heap_item& b) { return b.before(a); }
  // sort_bucket's cursor on one run of a bucket: its entry's time_lead and order key, compared
  // as one 128-bit number (no branch per field), its node and the run's last node.
  struct run_cursor {
    uint64_t time_lead, order;
    uint32_t node, last;
    bool before(const run_cursor& o) const {
      return ((static_cast<unsigned __int128>(time_lead) << 64) | order) <
             ((static_cast<unsigned __int128>(o.time_lead) << 64) | o.order);
    }
  };
  // The calendar: bucket b holds the wake-ups due in [b, b + 1) << bucket_shift, in slot
  // b % buckets, as a list of nodes from one pool (a burst fills thousands of entries into one
  // nanosecond: per-slot vectors would each keep their largest capacity). A client has one node
  // of its own, from its first schedule to its destruction (it has at most one wake-up pending):
  // a schedule and a wake-up keep no free list, and the node's client is written once. A
  // bucket's list is kept in order where it is stored: an entry is placed as it is scheduled
  // (usually after the tail: they arrive nearly in order), so the drain runs a bucket from its
  // list, no copy, no sort.
  static constexpr unsigned bucket_shift = 10;  // 1.024 ns
  static constexpr std::size_t buckets = std::size_t{1} << 14;
  static constexpr uint32_t no_node = timed_client::no_node;
  // An entry placed further than this from its list's tail goes to the tail instead and the
  // bucket is sorted when its turn comes: a burst in no order would otherwise cost n^2 steps.
  static constexpr unsigned max_walk = 16;
  // In a node's prev, in a bucket flagged out of order: the node begins an ascending run (it is
  // earlier than the entry before it), so that sort_bucket finds the runs without reading keys
  // (a client each: cache misses on a large fabric). Node indices stay below it.
  static constexpr uint32_t run_start = uint32_t{1} << 31;
  // Beyond the calendar: one unsorted list of nodes per period of half its span, over the next
  // far_periods periods (4.3 ms: a PFC pause at 10 Gb/s and up), the heap beyond. The calendar
  // holds the periods of cur_ and the next: a list is moved into it whole, its entries linked
  // into their buckets, as cur_ enters the period before its own, whose slots
  // the calendar has left by then (they are the ones two periods before).
  static constexpr unsigned period_shift = 13;  // in buckets: half the calendar (8.4 us)
  static constexpr std::size_t far_periods = 512;
  static constexpr uint64_t far_node = never_ps - 1;  // front_bucket_: a far list's entry
  struct node {
    entry e;
    // Doubly linked, so that a client's entry can be taken out where it is; prev may hold run_start.
    uint32_t next, prev;
  };
  static_assert(sizeof(node) == 32, "two nodes to a cache line");
  struct slot_list {
    uint32_t head = no_node, tail = no_node;
  };
  explicit event_queue(sc_core::sc_module_name name);
  ~event_queue() override;
  SC_HAS_PROCESS(event_queue);
  friend class timed_client;
  static event_queue& make_first();
  void forget(timed_client* c);
  event_queue& calendar_of(timed_client* c);
  template <bool Warm, bool Checked>
  void drain(uint64_t& now);
  void drain_window(uint64_t w, uint64_t w_end, uint64_t kernel, bool warm);
  void deliver_window();
  void windows_on_lanes(uint64_t from, uint64_t end, uint64_t kernel, bool warm);
  uint64_t earliest_of_parts();
  std::size_t pending_here() const;
  void add(timed_client* c, uint64_t at_ps);
  void add_as_of(timed_client* c, uint64_t at_ps, uint64_t sched_ps);
  static constexpr uint64_t sched_now = never_ps;  // add_slow's sched_ps: now_ps()
  void add_slow(timed_client* c, uint64_t at_ps, uint64_t sched_ps);
  void enqueue(timed_client* c, uint64_t at_ps, uint32_t lead);
  void take_out(timed_client* c);
  void link(uint32_t n, uint64_t b);
  void to_far(uint32_t n, uint64_t at_ps);
  void to_overflow(uint32_t n, uint64_t at_ps);
  void append_far(uint32_t n, uint64_t at_ps);
  bool far_before(uint32_t a, uint32_t b) const;
  void free_node(uint32_t n);
  void place(uint32_t n, uint64_t b);
  void sort_bucket(std::size_t slot);
  void refuse_past(uint64_t at_ps) const;
  [[noreturn]] void refuse_in_window(const char* what) const;
  uint32_t new_node(timed_client* c);
  timed_client* front();
  void take_head(std::size_t slot);
  void pop_front();
  void advance_to(uint64_t abs_bucket);
  void enter_period();
  void move_in(slot_list& far);
  timed_client* far_front();
  std::size_t next_busy_slot(std::size_t from) const;
  void run();
  void arm(uint64_t kernel_ps);
  uint64_t drain_limit(uint64_t kernel_ps) const;
  void use_calendar(uint32_t part);

  // One calendar's state: the whole fabric's, or with windows (run_in_windows) one per
  // partition, each swapped in for its partition's drain (the nodes stay shared).
  struct calendar_state {
    std::vector<slot_list> calendar_ = std::vector<slot_list>(buckets);
    std::vector<uint64_t> busy_ = std::vector<uint64_t>(buckets / 64);  // one bit per calendar slot: it holds entries
    std::vector<uint64_t> unsorted_ =
        std::vector<uint64_t>(buckets / 64);  // one bit per calendar slot: its list is out of order (max_walk)
    std::size_t busy_buckets_ = 0;            // calendar buckets that hold entries
    uint64_t cur_ = 0;                        // the calendar's first bucket (absolute): that of the last wake-up run
    uint64_t next_period_ = uint64_t{1} << period_shift;  // the first bucket of the period after cur_'s
    // Wake-ups at or after this go to the far lists (the end of the period after cur_'s), and at
    // or after far_end_ps_ to the heap: one comparison per schedule each.
    uint64_t calendar_end_ps_ = uint64_t{2} << (period_shift + bucket_shift);
    uint64_t far_end_ps_ = uint64_t{2 + far_periods} << (period_shift + bucket_shift);
    std::vector<slot_list> far_ =
        std::vector<slot_list>(far_periods);  // far_periods lists, period p in p % far_periods
    std::size_t in_far_ = 0;                  // entries in the far lists
    uint32_t far_min_ = no_node;              // the node far_front() returned
    uint64_t sorted_ = never_ps;              // a bucket front() found in order: entries join it in order at any cost
    uint64_t front_bucket_ = never_ps;        // the bucket whose head front() returned; far_node, never_ps: far
    std::vector<heap_item> overflow_;         // min-heap (by before) of the wake-ups beyond the far lists
  };
  calendar_state cal_;
  std::vector<node> nodes_;
  uint32_t free_ = no_node;       // nodes of destroyed clients, linked
  std::vector<run_cursor> runs_;  // sort_bucket's working storage
  // With windows: the other partitions' calendars (that of live_part_ is in cal_), the window
  // and the callbacks of run_in_windows.
  std::vector<calendar_state> parked_;  // partition p at p / lanes(): this lane's are p % lanes() == lane_index_
  uint32_t live_part_ = 0;
  // With windows on threads: the first queue (which the kernel runs) and its lanes, this one
  // first; each other lane has a thread of its own (lane_worker).
  event_queue* first_ = this;
  uint32_t lane_index_ = 0;
  std::vector<event_queue*> lanes_{this};
  std::unique_ptr<lane_worker> worker_;
  uint64_t job_w_ = 0, job_end_ = 0, job_kernel_ = 0;  // the window a lane's worker drains next
  bool job_deliver_ = false, job_warm_ = false;
  uint64_t busy_ns_ = 0;                      // this lane's wall time in its steps (written by its thread)
  uint64_t steps_ns_ = 0, window_count_ = 0;  // the first queue's: the steps' wall time, windows run
  bool in_partition_drain_ = false;
  uint64_t window_ps_ = 0;
  std::function<uint32_t(uint64_t)> part_of_;
  std::function<void(uint32_t)> deliver_;
  uint64_t armed_ps_;  // time the kernel event is set for
  uint64_t end_ps_ = 0;
  uint64_t drain_end_ = 0;  // while draining: no wake-up at or after it runs (0: end after the current one)
  uint64_t activations_ = 0;
  bool running_ = false, stop_ = false;
  sc_core::sc_event wake_;
};

// Runs the kernel for `duration`, letting the queue drain ahead up to the end of it. Use this
// instead of sc_start.
void start(const sc_core::sc_time& duration);

}  // namespace sluice
