#include "models/core/event_queue.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "models/core/lane_worker.h"
#include "models/core/merge_runs.h"
#include "models/core/packet.h"
#include "models/core/random.h"

namespace sluice {
namespace {
// Wall time for the windows' accounting (a few reads a window, not a frame).
uint64_t wall_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}
}  // namespace
namespace {
constexpr uint64_t never_armed = std::numeric_limits<uint64_t>::max();
event_queue* g_queue = nullptr;  // the first queue, once made
// The client whose on_timer() runs on this thread, if any (per thread: a windowed run's lanes).
[[gnu::tls_model("initial-exec")]] thread_local timed_client* g_running = nullptr;
uint64_t g_owner = 0;  // the open order_scope's owner
// Clients made so far per owner: a scope opened again for the same owner goes on counting.
std::unordered_map<uint64_t, uint32_t>& owner_counts() {
  static std::unordered_map<uint64_t, uint32_t> counts;
  return counts;
}
}  // namespace

order_scope::order_scope(uint64_t owner) : outer_(g_owner) { g_owner = owner; }
order_scope::~order_scope() { g_owner = outer_; }

uint64_t order_scope::next_key() {
  if (timed_client* const maker = g_running) {
    if (maker->spawned_ == (uint32_t{1} << 24) - 1) [[unlikely]]
      SC_REPORT_FATAL("sluice_event_queue", "a model made more than 2^24 timed clients while running");
    return mix64(maker->order_ ^ mix64(++maker->spawned_));
  }
  return g_owner << 32 | owner_counts()[g_owner]++;
}

uint32_t order_scope::maker_part() {
  const timed_client* c = g_running;
  return c ? c->part_ : timed_client::no_part;
}

event_queue& event_queue::make_first() {
  static event_queue* queue = new event_queue("sluice_event_queue");  // owned by the kernel's hierarchy
  return *queue;
}

event_queue::event_queue(sc_core::sc_module_name name) : sc_module(name), armed_ps_(never_armed) {
  if (!g_queue) g_queue = clock_detail::lane = this;  // a windowed run's other lanes are set on their threads
  // The models count time in picoseconds and from_ps() builds sc_times from them bit for bit:
  // the resolution must be 1 ps, and asking for it fixes it (a later sc_set_time_resolution,
  // say by a foreign model, is then the kernel's error, not a silent change of scale).
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    SC_REPORT_FATAL(this->name(), ("the SystemC time resolution is " + sc_core::sc_get_time_resolution().to_string() +
                                   "; Sluice's models need 1 ps")
                                      .c_str());
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

event_queue::~event_queue() {
  if (g_queue != this) return;
  for (std::size_t l = 1; l < lanes_.size(); ++l) delete lanes_[l];
  g_queue = nullptr;
  if (clock_detail::lane == this) clock_detail::lane = nullptr;
}

timed_client::~timed_client() {
  live_.fetch_sub(1, std::memory_order_relaxed);
  if (node_ != no_node)
    if (event_queue* q = clock_detail::lane) q->forget(this);
}

// A client going away takes its pending wake-up with it, and gives its node back.
void event_queue::forget(timed_client* c) {
  event_queue& q = parked_.empty() ? *this : calendar_of(c);
  if (c->at_ps_ != never_ps) q.take_out(c);
  q.free_node(c->node_);
}

// Counted when asked (a statistic at the end of a run), not kept on every schedule and wake-up.
std::size_t event_queue::pending() const {
  std::size_t n = 0;
  for (const event_queue* q : first_->lanes_) n += q->pending_here();
  return n;
}

std::size_t event_queue::pending_here() const {
  std::size_t n = 0;
  for (const node& x : nodes_)
    if (x.e.client && x.e.client->at_ps_ != never_ps) ++n;
  return n;
}

// Out of line and cold: the message's strings would otherwise weigh on every schedule.
[[gnu::noinline, gnu::cold]] void event_queue::refuse_past(uint64_t at_ps) const {
  SC_REPORT_ERROR(name(), ("wake-up scheduled in the past: " + std::to_string(at_ps) + " ps < now " +
                           std::to_string(now_ps()) + " ps")
                              .c_str());
}

// A windowed run (run_in_windows) cannot do what needs every partition at one model time.
[[gnu::noinline, gnu::cold]] void event_queue::refuse_in_window(const char* what) const {
  SC_REPORT_ERROR(name(), ("window partitions: " + std::string(what) +
                           " needs the whole fabric at one time; run without window partitions")
                              .c_str());
  std::abort();  // not reached: a fatal report ends the run
}

// A wake-up for a client with none pending while the queue drains (the usual case), scheduled
// now: every call in it is a tail call, so nothing must outlive a call and it saves no
// registers. Its lead is at_ps - now, and one unsigned test of it sends a schedule into the
// past, from outside a drain (clock_detail::idle_now) or with a lead beyond 32 bits (4.3 ms)
// to add_slow, as it does one moving a pending wake-up earlier or a client's first.
void event_queue::add(timed_client* c, uint64_t at_ps) {
  const uint64_t lead = at_ps - clock_detail::now;
  if (lead > std::numeric_limits<uint32_t>::max() || c->at_ps_ != never_ps || c->node_ == no_node) [[unlikely]]
    return add_slow(c, at_ps, sched_now);  // not now_ps() here: its kernel call would cost add saved registers
  enqueue(c, at_ps, static_cast<uint32_t>(lead));
}

// As add, its lead from sched_ps (a partition's copy of a link, schedule_as_of).
void event_queue::add_as_of(timed_client* c, uint64_t at_ps, uint64_t sched_ps) {
  if (at_ps - clock_detail::now > std::numeric_limits<uint32_t>::max() || c->at_ps_ != never_ps || c->node_ == no_node)
      [[unlikely]]
    return add_slow(c, at_ps, sched_ps);
  uint64_t lead;  // sched_ps <= now <= at_ps, but a partition's copy of a link may say otherwise
  if (__builtin_sub_overflow(at_ps, sched_ps, &lead)) lead = 0;
  enqueue(c, at_ps, static_cast<uint32_t>(std::min<uint64_t>(lead, std::numeric_limits<uint32_t>::max())));
}

[[gnu::noinline]] void event_queue::add_slow(timed_client* c, uint64_t at_ps, uint64_t sched_ps) {
  event_queue& q = parked_.empty() ? *this : calendar_of(c);
  const uint64_t now = now_ps();
  if (sched_ps == sched_now) sched_ps = now;
  if (at_ps < now) refuse_past(at_ps);
  if (c->at_ps_ != never_ps)
    q.take_out(c);  // an earlier wake-up replaces the pending one, in the same node
  else if (c->node_ == no_node)
    c->node_ = q.new_node(c);
  const uint64_t lead = at_ps - std::min(sched_ps, at_ps);
  q.enqueue(c, at_ps, static_cast<uint32_t>(std::min<uint64_t>(lead, std::numeric_limits<uint32_t>::max())));
  if (!first_->running_ && at_ps < first_->armed_ps_) first_->arm(sc_core::sc_time_stamp().value());
}

// Its entry is written straight into the client's node (through a copy on the stack it cost a
// dozen instructions more).
[[gnu::always_inline]] inline void event_queue::enqueue(timed_client* c, uint64_t at_ps, uint32_t lead) {
  c->at_ps_ = at_ps;
  const uint32_t n = c->node_;
  nodes_[n].e.time_lead = at_ps << 32 | static_cast<uint32_t>(~lead);
  if (at_ps >= cal_.calendar_end_ps_) [[unlikely]]
    return to_far(n, at_ps);
  link(n, at_ps >> bucket_shift);
}

// Takes a client's pending entry out of the queue, wherever it is: its bucket or its far list
// (both doubly linked; a head's prev is not kept, so the head is found by its index), or the
// heap (found by a search: the node is the client's again at once, and wake-ups over 4.3 ms
// ahead are rarely replaced). Where it is follows from its time: the calendar and the far lists
// take in their entries as soon as their ends move past them. The node stays the client's.
[[gnu::noinline]] void event_queue::take_out(timed_client* c) {
  const uint32_t n = c->node_;
  node& x = nodes_[n];
  const uint64_t at_ps = c->at_ps_;
  if (at_ps >= cal_.far_end_ps_) {
    *std::find_if(cal_.overflow_.begin(), cal_.overflow_.end(), [n](const heap_item& h) { return h.node == n; }) =
        cal_.overflow_.back();
    cal_.overflow_.pop_back();
    std::make_heap(cal_.overflow_.begin(), cal_.overflow_.end(), later);
    return;
  }
  const bool far = at_ps >= cal_.calendar_end_ps_;
  const std::size_t slot = (at_ps >> bucket_shift) & (buckets - 1);
  slot_list& l = far ? cal_.far_[(at_ps >> (bucket_shift + period_shift)) & (far_periods - 1)] : cal_.calendar_[slot];
  const uint32_t prev = x.prev & ~run_start;
  if (l.head == n)
    l.head = x.next;
  else
    nodes_[prev].next = x.next;
  if (l.tail == n)
    l.tail = l.head == no_node ? no_node : prev;
  else  // a run's first entry taken out: the next begins the run, if it did not begin one itself
    nodes_[x.next].prev = prev | ((x.prev | nodes_[x.next].prev) & run_start);
  if (far) {
    --cal_.in_far_;
    return;
  }
  if (l.head == no_node) {
    cal_.busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
    cal_.unsorted_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
    --cal_.busy_buckets_;
  }
}

void event_queue::free_node(uint32_t n) {
  nodes_[n].e.client = nullptr;
  nodes_[n].next = free_;
  free_ = n;
}

// A client's node, at its first schedule: a destroyed client's, or a new one.
uint32_t event_queue::new_node(timed_client* c) {
  uint32_t n = free_;
  if (n == no_node) {
    n = static_cast<uint32_t>(nodes_.size());
    if (n == run_start) [[unlikely]]
      SC_REPORT_FATAL(name(), "more than 2^31 clients scheduled");  // prev's flag bit must stay free
    nodes_.push_back({});
  } else {
    free_ = nodes_[n].next;
  }
  nodes_[n].e.client = c;
  nodes_[n].e.order = c->order_;  // a client's key is fixed at its construction
  return n;
}

// Links node n, its entry written, into bucket b of the calendar (every wake-up is at or after
// now, and now is in the calendar's first bucket or later). Inline into add: one function per
// schedule, not four (each saved registers of its own). The usual entry is the latest of its
// bucket: appended after one comparison with the tail.
[[gnu::always_inline]] inline void event_queue::link(uint32_t n, uint64_t b) {
  const std::size_t slot = b & (buckets - 1);
  node& x = nodes_[n];
  x.next = no_node;
  slot_list& l = cal_.calendar_[slot];
  if (l.tail == no_node) {
    l.head = l.tail = n;
    cal_.busy_[slot >> 6] |= uint64_t{1} << (slot & 63);
    ++cal_.busy_buckets_;
  } else if (!x.e.before(nodes_[l.tail].e)) {
    x.prev = l.tail;
    nodes_[l.tail].next = n;
    l.tail = n;
  } else {
    return place(n, b);  // it finds its slot again: fewer values live here, no saved registers
  }
}

// Beyond the calendar: node n (its entry written) is appended to its period's far list, or
// beyond those goes into the heap.
[[gnu::noinline]] void event_queue::to_far(uint32_t n, uint64_t at_ps) {
  if (at_ps >= cal_.far_end_ps_) [[unlikely]]
    return to_overflow(n, at_ps);
  append_far(n, at_ps);
}

inline void event_queue::append_far(uint32_t n, uint64_t at_ps) {
  slot_list& l = cal_.far_[(at_ps >> (bucket_shift + period_shift)) & (far_periods - 1)];
  nodes_[n].next = no_node;
  nodes_[n].prev = l.tail;
  if (l.tail == no_node)
    l.head = n;
  else
    nodes_[l.tail].next = n;
  l.tail = n;
  ++cal_.in_far_;
}

[[gnu::noinline]] void event_queue::to_overflow(uint32_t n, uint64_t at_ps) {
  const entry& e = nodes_[n].e;
  cal_.overflow_.push_back({at_ps, e.order, static_cast<uint32_t>(~e.time_lead), n});
  std::push_heap(cal_.overflow_.begin(), cal_.overflow_.end(), later);
}

// Node n (not yet linked) goes before its bucket's tail: found walking back from the tail. The
// bucket front() found in order (sorted_) stays in order whatever the walk costs: the drain may
// be running it. Another bucket takes n at its tail after max_walk steps and is sorted later.
[[gnu::noinline]] void event_queue::place(uint32_t n, uint64_t b) {
  node& x = nodes_[n];
  const std::size_t slot = b & (buckets - 1);
  slot_list& l = cal_.calendar_[slot];
  const uint64_t flag = uint64_t{1} << (slot & 63);
  uint64_t& unsorted = cal_.unsorted_[slot >> 6];
  if (!(unsorted & flag)) {
    uint32_t p = l.tail;  // x.e goes before p
    for (unsigned steps = 0; b == cal_.sorted_ || steps < max_walk; ++steps) {
      if (p == l.head) {  // before them all
        x.next = p;
        nodes_[p].prev = n;
        l.head = n;
        return;
      }
      const uint32_t q = nodes_[p].prev;
      if (!x.e.before(nodes_[q].e)) {  // between q and p
        x.prev = q;
        x.next = p;
        nodes_[q].next = n;
        nodes_[p].prev = n;
        return;
      }
      p = q;
    }
    unsorted |= flag;
  }
  x.prev = l.tail | run_start;  // earlier than the tail: a run begins
  nodes_[l.tail].next = n;
  l.tail = n;
}

// Puts a bucket's entries in order by relinking its nodes. Only a bucket that a burst reached
// out of order comes here (thousands of frames in one nanosecond, or a large fabric's
// synchronized hops: most of its entries then tie in time and lead, in a few runs of the order
// their causes ran in). Its list is a chain of ascending runs, each begun by a node flagged
// run_start as it was linked, which merge_runs merges through a heap of the runs' fronts. An
// entry's key is read (from its node: no client is read) only when its run's front reaches it,
// and the last run left is linked whole: a synchronized bucket's long last run, past the
// others, is never read.
[[gnu::noinline]] void event_queue::sort_bucket(std::size_t slot) {
  cal_.unsorted_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
  slot_list& l = cal_.calendar_[slot];
  runs_.clear();
  uint32_t first = l.head, last = l.head;
  for (uint32_t n = nodes_[last].next; n != no_node; last = n, n = nodes_[n].next)
    if (nodes_[n].prev & run_start) {
      runs_.push_back({0, 0, first, last});
      first = n;
    }
  runs_.push_back({0, 0, first, last});
  if (runs_.size() == 1) return;  // the other runs all taken out: in order
  const auto read = [this](run_cursor& c, uint32_t n) {
    const entry& e = nodes_[n].e;
    c.node = n;
    c.time_lead = e.time_lead;
    c.order = e.order;
  };
  for (run_cursor& c : runs_) read(c, c.node);
  uint32_t prev = no_node;
  const auto append = [&](uint32_t n) {
    nodes_[n].prev = prev;  // no run_start: the bucket is in order
    if (prev == no_node)
      l.head = n;
    else
      nodes_[prev].next = n;
    prev = n;
  };
  merge_runs(
      runs_, [](const run_cursor& a, const run_cursor& b) { return a.before(b); },
      [&](run_cursor& c) {
        if (c.node == c.last) return false;
        read(c, nodes_[c.node].next);
        return true;
      },
      [&](const run_cursor& c) { append(c.node); },
      [&](const run_cursor& c) {
        append(c.node);  // and the rest of its run after it, linked already
        nodes_[c.last].next = no_node;
        l.tail = c.last;
      });
}

// The first busy slot at or after `from`, going round: the calendar holds at least one entry.
std::size_t event_queue::next_busy_slot(std::size_t from) const {
  const std::size_t words = cal_.busy_.size();
  std::size_t w = from >> 6;
  uint64_t bits = cal_.busy_[w] & (~uint64_t{0} << (from & 63));
  for (std::size_t k = 0; k <= words; ++k) {
    if (bits) return (w << 6) + static_cast<std::size_t>(__builtin_ctzll(bits));
    w = (w + 1) & (words - 1);
    bits = cal_.busy_[w];
  }
  return from;  // not reached
}

// Unlinks a calendar slot's head (the prev of the new head is left as it was: place() stops at
// the head by its index, not by a missing prev).
inline void event_queue::take_head(std::size_t slot) {
  slot_list& l = cal_.calendar_[slot];
  l.head = nodes_[l.head].next;
  if (l.head == no_node) {
    l.tail = no_node;
    cal_.busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
    --cal_.busy_buckets_;
  }
}

// The client of the next wake-up (nullptr: none). It does not move the calendar: a foreign
// process may still schedule before it.
timed_client* event_queue::front() {
  if (cal_.busy_buckets_ > 0) {
    const std::size_t first = cal_.cur_ & (buckets - 1);
    const std::size_t slot = next_busy_slot(first);
    const uint64_t b = cal_.cur_ + ((slot - first) & (buckets - 1));
    if (b != cal_.sorted_) {
      if (cal_.unsorted_[slot >> 6] & (uint64_t{1} << (slot & 63))) sort_bucket(slot);
      cal_.sorted_ = b;
    }
    cal_.front_bucket_ = b;
    return nodes_[cal_.calendar_[slot].head].e.client;
  }
  if (cal_.in_far_ > 0)
    if (timed_client* c = far_front()) return c;
  cal_.front_bucket_ = never_ps;
  return cal_.overflow_.empty() ? nullptr : nodes_[cal_.overflow_.front().node].e.client;
}

// A far list's entries are of several buckets: their times are their clients'.
bool event_queue::far_before(uint32_t a, uint32_t b) const {
  const uint64_t at_a = nodes_[a].e.client->at_ps_, at_b = nodes_[b].e.client->at_ps_;
  return at_a != at_b ? at_a < at_b : nodes_[a].e.before(nodes_[b].e);
}

// The calendar is empty: the earliest entry of the first far list that holds one (a list is in
// no order: each is looked at).
[[gnu::noinline]] timed_client* event_queue::far_front() {
  const uint64_t first = (cal_.cur_ >> period_shift) + 2;
  for (uint64_t p = first; p < first + far_periods; ++p) {
    uint32_t best = no_node;
    for (uint32_t n = cal_.far_[p & (far_periods - 1)].head; n != no_node; n = nodes_[n].next)
      if (best == no_node || far_before(n, best)) best = n;
    if (best != no_node) {
      cal_.far_min_ = best;
      cal_.front_bucket_ = far_node;
      return nodes_[best].e.client;
    }
  }
  return nullptr;
}

// Removes the entry front() returned and moves the calendar's start to its bucket.
void event_queue::pop_front() {
  if (cal_.front_bucket_ < far_node) {
    take_head(cal_.front_bucket_ & (buckets - 1));
    advance_to(cal_.front_bucket_);
    return;
  }
  if (cal_.front_bucket_ == far_node) {
    // Its period moves into the calendar with it (the calendar was empty), where it is the head
    // of the first busy bucket.
    advance_to(nodes_[cal_.far_min_].e.client->at_ps_ >> bucket_shift);
    front();
    take_head(cal_.front_bucket_ & (buckets - 1));
    return;
  }
  const uint64_t b = cal_.overflow_.front().at_ps >> bucket_shift;
  std::pop_heap(cal_.overflow_.begin(), cal_.overflow_.end(), later);
  cal_.overflow_.pop_back();
  advance_to(b);
}

// The buckets before b are empty. Tested here, inline: a new period is rare (one per 8.4 us).
inline void event_queue::advance_to(uint64_t b) {
  if (b <= cal_.cur_) return;
  cal_.cur_ = b;
  if (b >= cal_.next_period_) [[unlikely]]
    enter_period();
}

// cur_ has entered a later period: the far lists of the periods up to the one after it move
// into the calendar, into slots it left two periods ago (empty), before anything else can be
// scheduled there; then the heap's entries that the far lists now reach move into them.
[[gnu::noinline]] void event_queue::enter_period() {
  const uint64_t was = (cal_.next_period_ >> period_shift) - 1;
  const uint64_t now = cal_.cur_ >> period_shift;
  cal_.next_period_ = (now + 1) << period_shift;
  cal_.calendar_end_ps_ = (now + 2) << (period_shift + bucket_shift);
  cal_.far_end_ps_ = (now + 2 + far_periods) << (period_shift + bucket_shift);
  for (uint64_t p = was + 2; p <= now + 1 && p < was + 2 + far_periods && cal_.in_far_ > 0; ++p)
    move_in(cal_.far_[p & (far_periods - 1)]);
  while (!cal_.overflow_.empty() && cal_.overflow_.front().at_ps < cal_.far_end_ps_) {
    const uint32_t n = cal_.overflow_.front().node;
    const uint64_t at_ps = cal_.overflow_.front().at_ps;
    std::pop_heap(cal_.overflow_.begin(), cal_.overflow_.end(), later);
    cal_.overflow_.pop_back();
    if (at_ps < cal_.calendar_end_ps_)
      link(n, at_ps >> bucket_shift);
    else
      append_far(n, at_ps);
  }
}

// A far list's entries are linked into their buckets, each placed in order as a schedule is.
void event_queue::move_in(slot_list& far) {
  uint32_t n = far.head;
  far.head = far.tail = no_node;
  while (n != no_node) {
    const uint32_t next = nodes_[n].next;
    --cal_.in_far_;
    link(n, nodes_[n].e.client->at_ps_ >> bucket_shift);
    n = next;
  }
}

// With windows: the lane of c's partition (found from its key at its first schedule), that
// partition's calendar in use. Only between the partitions' drains: during one, a client of
// another partition is a coupling at zero delay that windows cannot order (and, on threads, one
// that another thread may be draining).
event_queue& event_queue::calendar_of(timed_client* c) {
  if (c->part_ == timed_client::no_part) c->part_ = first_->part_of_(c->order_) & 0xff;
  if (c->part_ == live_part_) return *this;  // a lane's live partition is one of its own
  if (in_partition_drain_) refuse_in_window("a wake-up of another partition's model, at zero delay,");
  event_queue& q = *first_->lanes_[c->part_ % lanes()];
  q.use_calendar(c->part_);
  return q;
}

// Swaps partition part's calendar in (parked_[live_part_ / lanes()] is an empty stand-in while live).
void event_queue::use_calendar(uint32_t part) {
  if (part == live_part_) return;
  const uint32_t l = lanes();
  std::swap(cal_, parked_[live_part_ / l]);
  std::swap(cal_, parked_[part / l]);
  live_part_ = part;
}

void event_queue::run_in_windows(uint32_t parts, uint32_t threads, uint64_t window_ps,
                                 std::function<uint32_t(uint64_t)> part_of, std::function<void(uint32_t)> deliver) {
  if (parts < 1 || parts >= timed_client::no_part)
    SC_REPORT_ERROR(name(), ("window partitions: " + std::to_string(parts) + " (1 to 254)").c_str());
  if (threads < 1 || threads > parts)
    SC_REPORT_ERROR(
        name(), ("window threads: " + std::to_string(threads) + " (1 to the partitions, " + std::to_string(parts) + ")")
                    .c_str());
  if (lanes_.size() > 1 || !parked_.empty()) SC_REPORT_ERROR(name(), "window partitions: the windows were set already");
  if (pending() != 0) SC_REPORT_ERROR(name(), "window partitions: wake-ups were scheduled before the windows were set");
  for (uint32_t l = 1; l < threads; ++l) {
    auto* q = new event_queue(sc_core::sc_gen_unique_name("sluice_event_queue_lane"));
    q->first_ = this;
    q->lane_index_ = l;
    lanes_.push_back(q);
  }
  for (event_queue* q : lanes_) {
    q->parked_.assign((parts - q->lane_index_ + threads - 1) / threads, calendar_state{});
    q->live_part_ = q->lane_index_;
    q->window_ps_ = std::max<uint64_t>(window_ps, 1);
    if (q == this) continue;
    // The lane's thread: its models schedule on the lane and take payloads from a pool of its own.
    q->worker_ = std::make_unique<lane_worker>(
        [q, threads] {
          clock_detail::lane = q;
          packet_pool::use_own_on_this_thread(q->lane_index_, threads);
        },
        [q] {
          const uint64_t start = wall_ns();
          q->job_deliver_ ? q->deliver_window() : q->drain_window(q->job_w_, q->job_end_, q->job_kernel_, q->job_warm_);
          thread_counts::handed_packet_hops.fetch_add(std::exchange(thread_counts::packet_hops, 0),
                                                      std::memory_order_relaxed);
          q->busy_ns_ += wall_ns() - start;
        });
  }
  window_ps_ = std::max<uint64_t>(window_ps, 1);
  part_of_ = std::move(part_of);
  deliver_ = std::move(deliver);
}

std::vector<double> event_queue::lanes_busy_s() const {
  std::vector<double> busy;
  for (const event_queue* q : first_->lanes_) busy.push_back(static_cast<double>(q->busy_ns_) * 1e-9);
  return busy;
}

// The earliest wake-up of this lane's partitions (never_ps: none).
uint64_t event_queue::earliest_of_parts() {
  uint64_t best = never_ps;
  for (uint32_t p = lane_index_; p / lanes() < parked_.size(); p += lanes()) {
    use_calendar(p);
    if (const timed_client* c = front(); c && c->at_ps_ < best) best = c->at_ps_;
  }
  return best;
}

void event_queue::arm(uint64_t kernel_ps) {
  uint64_t at = never_ps;
  if (parked_.empty()) {
    if (const timed_client* next = front()) at = next->at_ps_;
  } else {  // the earliest wake-up of any partition
    for (event_queue* q : lanes_) at = std::min(at, q->earliest_of_parts());
  }
  if (at == never_ps) {
    armed_ps_ = never_armed;
    return;
  }
  armed_ps_ = std::max(at, kernel_ps);
  wake_.notify(from_ps(armed_ps_ - kernel_ps));  // an earlier notification replaces a later one
}

// Wake-ups due at or before the returned time run in this activation: everything before the
// next foreign kernel activity and before the end of the run; never less than the kernel's now.
uint64_t event_queue::drain_limit(uint64_t kernel_ps) const {
  if (end_ps_ <= kernel_ps) return kernel_ps;
  uint64_t gap = sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext()).value();
  uint64_t foreign = gap > never_ps - kernel_ps ? never_ps : kernel_ps + gap;
  uint64_t bound = std::min(foreign, end_ps_);
  return bound > kernel_ps ? bound - 1 : kernel_ps;  // a foreign event's own time belongs to the kernel
}

// Runs the wake-ups of the live calendar before drain_end_, `now` the models' clock (the caller's
// register). In copies: with and without warming the clients ahead (Warm: decided once a drain,
// not tested per bucket: clients made while it runs change little), and with windows (Checked).
// Inline into each caller, as the lambdas of one function it was.
template <bool Warm, bool Checked>
[[gnu::always_inline]] inline void event_queue::drain(uint64_t& now) {
  // One wake-up: the models' clock moves to it and its client runs. With windows (`checked`), a
  // client in another partition's calendar was scheduled there by a model of this one at zero
  // delay (not through a cut link's frame): an order windows cannot keep.
  const auto wake = [&](timed_client* c, uint64_t at_ps, auto checked) {
    if constexpr (decltype(checked)::value)
      if (c->part_ != live_part_) refuse_in_window("a wake-up of another partition's model, at zero delay,");
    c->at_ps_ = never_ps;  // node_ is left as it was: it means nothing once at_ps_ is never_ps
    now = std::max(now, at_ps);
    clock_detail::now = now;
    g_running = c;  // cleared after the drain, not after each wake-up: nothing runs in between
    c->on_timer();  // may schedule again, including at now
  };
  // The bucket being run, in short: its list stays in a register across the wake-ups (a model's
  // on_timer() does not move the calendar), so each wake-up tests one head. Returns false if the
  // drain ends at its head. Warms the clients ahead if warm_ahead is std::true_type.
  const auto run_bucket = [&](auto warm_ahead, auto checked) {
    slot_list& l = cal_.calendar_[cal_.cur_ & (buckets - 1)];
    for (uint32_t h; (h = l.head) != no_node;) {
      node& n = nodes_[h];
      timed_client* const c = n.e.client;
      const uint64_t at_ps = c->at_ps_;
      if (at_ps >= drain_end_) return false;
      l.head = n.next;
      if (l.head == no_node) {  // the bucket is done
        l.tail = no_node;
        const std::size_t slot = cal_.cur_ & (buckets - 1);
        cal_.busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
        --cal_.busy_buckets_;
      } else if constexpr (decltype(warm_ahead)::value) {
        // A large fabric's clients are cache misses. A bucket usually holds dozens of wake-ups,
        // so work ahead in two stages (counted from the wake-up about to run): the client's
        // first two lines three on (a model's own per-wake-up fields follow its timer's), and
        // two on the client's warm(), which prefetches what it reaches through pointers. The
        // list is walked to them again each time: a few loads from lines just used.
        // And the next wake-up's warm_more(): what warm() reached, one wake-up ago, points to.
        nodes_[l.head].e.client->warm_more();
        uint32_t a = nodes_[l.head].next;
        if (a != no_node) {
          nodes_[a].e.client->warm();
          a = nodes_[a].next;
          if (a != no_node) {
            const char* ahead = reinterpret_cast<const char*>(nodes_[a].e.client);
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 64);
          }
        }
      }
      wake(c, at_ps, checked);
    }
    return true;
  };
  const std::bool_constant<Warm> warm_ahead;
  const std::bool_constant<Checked> checked;
  for (;;) {
    if (cal_.sorted_ == cal_.cur_) {
    bucket:  // the usual case under load, front() and pop_front() in short: the head of the bucket being run
      if (!run_bucket(warm_ahead, checked)) return;
    }
    if (cal_.busy_buckets_ > 0) {
      // A bucket change, front() and pop_front() in one: the next busy bucket (the calendar holds
      // one), sorted if a burst reached it out of order; its head runs, the calendar moves to it
      // and run_bucket runs the rest. Inline: the two calls saved and restored registers.
      const std::size_t first = cal_.cur_ & (buckets - 1);
      std::size_t w = first >> 6;
      uint64_t bits = cal_.busy_[w] & (~uint64_t{0} << (first & 63));
      while (!bits) {
        w = (w + 1) & (buckets / 64 - 1);
        bits = cal_.busy_[w];
      }
      const std::size_t slot = (w << 6) + static_cast<std::size_t>(__builtin_ctzll(bits));
      const uint64_t b = cal_.cur_ + ((slot - first) & (buckets - 1));
      if (b != cal_.sorted_) {
        if (cal_.unsorted_[w] & (uint64_t{1} << (slot & 63))) sort_bucket(slot);
        cal_.sorted_ = b;
      }
      timed_client* const c = nodes_[cal_.calendar_[slot].head].e.client;
      const uint64_t at_ps = c->at_ps_;
      if (at_ps >= drain_end_) return;
      take_head(slot);  // here, not in run_bucket: a bucket's first wake-up warms none ahead
      advance_to(b);
      wake(c, at_ps, checked);
      goto bucket;  // sorted_ == cur_ == b: only the drain moves them
    }
    timed_client* const c = front();
    if (!c || c->at_ps_ >= drain_end_) return;
    const uint64_t at_ps = c->at_ps_;
    pop_front();
    wake(c, at_ps, checked);
  }
}

void event_queue::run() {
  const uint64_t kernel = sc_core::sc_time_stamp().value();
  ++activations_;
  if (stop_) {  // the kernel has caught up with the time a stop was requested at
    stop_ = false;
    armed_ps_ = never_armed;
    sc_core::sc_stop();
    return;
  }
  // Foreign processes due now go first (a sampler, a script, an RTL clock at T see the models
  // before their wake-ups at T): which of them the kernel runs first otherwise depends on when
  // each was notified, and a partitioned run (docs/parallel.md) re-arms the queue at other
  // moments than the whole run does.
  if (sc_core::sc_pending_activity_at_current_time(sc_core::sc_get_curr_simcontext())) {
    wake_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  // Wake-ups before drain_end_ run; sync() and request_stop() set it to 0, so the test before each
  // wake-up also ends the drain after the current one (no flag tested after every wake-up).
  drain_end_ = drain_limit(kernel) + 1;
  running_ = true;
  uint64_t now = kernel;  // clock_detail::now, kept in a register (only the drain moves it)
  clock_detail::now = now;
  clock_detail::kernel = kernel;
  const bool warm = timed_client::live() >= warm_ahead_clients;
  if (parked_.empty()) {
    if (warm)
      drain<true, false>(now);
    else
      drain<false, false>(now);
  } else {
    windows_on_lanes(kernel, drain_end_, kernel, warm);
    now = clock_detail::now;
  }
  g_running = nullptr;
  const uint64_t reached = now;
  clock_detail::now = clock_detail::idle_now;
  running_ = false;
  if (stop_) {
    if (reached == kernel) {
      stop_ = false;
      armed_ps_ = never_armed;
      sc_core::sc_stop();
      return;
    }
    armed_ps_ = reached;
    wake_.notify(from_ps(reached - kernel));
    return;
  }
  arm(kernel);
}

// Windows (run_in_windows): no frame sent in [w, w + window) lands in another partition before
// w + window, so each partition drains the window alone, its lane's thread beside the others;
// then each lane hands its partitions the frames shipped to them in the window. Both steps end
// when every lane's has (a frame may come from any lane, and go to any).
void event_queue::windows_on_lanes(uint64_t from, uint64_t end, uint64_t kernel, bool warm) {
  // Runs step here and on every other lane's thread at once; rethrows the first error, once
  // every lane has stopped (none may go on with what an unwinding thread frees).
  const auto on_every_lane = [&](bool deliver, uint64_t w, uint64_t w_end) {
    for (std::size_t l = 1; l < lanes_.size(); ++l) {
      event_queue& q = *lanes_[l];
      q.job_deliver_ = deliver, q.job_w_ = w, q.job_end_ = w_end, q.job_kernel_ = kernel, q.job_warm_ = warm;
      q.worker_->go();
    }
    std::exception_ptr error;
    const uint64_t start = wall_ns();
    try {
      deliver ? deliver_window() : drain_window(w, w_end, kernel, warm);
    } catch (...) {
      error = std::current_exception();
    }
    // No clock read after an error: the run ends with it, and a throw after a SystemC thread switch
    // leaves ASan's view of this stack stale (docs/testing.md, "Sanitizers").
    if (!error) busy_ns_ += wall_ns() - start;
    for (std::size_t l = 1; l < lanes_.size(); ++l) try {
        lanes_[l]->worker_->wait();
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    if (!error) steps_ns_ += wall_ns() - start;
    if (error) std::rethrow_exception(error);
  };
  for (uint64_t w = from; w < end && !stop_;) {
    const uint64_t w_end = end - w > window_ps_ ? w + window_ps_ : end;
    on_every_lane(false, w, w_end);
    on_every_lane(true, w, w_end);
    ++window_count_;
    w = w_end;
  }
}

// This lane's partitions' wake-ups in [w, w_end), one partition after another, each from w.
void event_queue::drain_window(uint64_t w, uint64_t w_end, uint64_t kernel, bool warm) {
  clock_detail::kernel = kernel;  // on a lane's own thread, its models' clock (`now` below)
  // running_ stays the first lane's alone (set by run()): every lane reads it (add_slow), so
  // no lane writes it while they drain.
  // Reset however the drain ends: a model's error unwinds through here, and the clients its
  // teardown destroys must not be taken for wake-ups across partitions.
  struct in_drain {
    bool& flag;
    explicit in_drain(bool& f) : flag(f) { flag = true; }
    ~in_drain() { flag = false; }
  } const during(in_partition_drain_);
  for (uint32_t p = lane_index_; p / lanes() < parked_.size(); p += lanes()) {
    use_calendar(p);
    drain_end_ = w_end;
    uint64_t now = w;
    clock_detail::now = w;
    if (warm)
      drain<true, true>(now);
    else
      drain<false, true>(now);
  }
  g_running = nullptr;  // nothing runs while the frames are delivered
}

// The frames shipped to this lane's partitions in the window, each with its calendar in use.
void event_queue::deliver_window() {
  for (uint32_t p = lane_index_; p / lanes() < parked_.size(); p += lanes()) {
    use_calendar(p);
    first_->deliver_(p);
  }
}

void event_queue::request_stop() {
  if (in_partition_drain_) refuse_in_window("a stop at a model's time");
  if (running_)
    stop_ = true, drain_end_ = 0;  // the drain ends after the current wake-up; sc_stop once the kernel is there
  else
    sc_core::sc_stop();
}

void start(const sc_core::sc_time& duration) {
  event_queue& q = event_queue::instance();
  q.set_end(sc_core::sc_time_stamp().value() + duration.value());
  sc_core::sc_start(duration);
  q.set_end(0);
}

}  // namespace sluice
