#include "models/core/event_queue.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "models/core/random.h"

namespace sluice {
namespace {
constexpr uint64_t never_armed = std::numeric_limits<uint64_t>::max();
constexpr uint64_t dead_seq = std::numeric_limits<uint64_t>::max();  // matches no entry
event_queue* g_queue = nullptr;                                      // the queue, once made
timed_client* g_running = nullptr;                                   // the client whose on_timer() runs, if any
uint64_t g_owner = 0;                                                // the open order_scope's owner
// Clients made so far per owner: a scope opened again for the same owner goes on counting.
std::unordered_map<uint64_t, uint32_t>& owner_counts() {
  static std::unordered_map<uint64_t, uint32_t> counts;
  return counts;
}
}  // namespace

order_scope::order_scope(uint64_t owner) : outer_(g_owner) { g_owner = owner; }
order_scope::~order_scope() { g_owner = outer_; }

uint64_t order_scope::next_key() {
  if (g_running) return mix64(g_running->order_ ^ mix64(++g_running->spawned_));
  return g_owner << 32 | owner_counts()[g_owner]++;
}

event_queue& event_queue::instance() {
  static event_queue* queue = new event_queue("sluice_event_queue");  // owned by the kernel's hierarchy
  return *queue;
}

event_queue* event_queue::existing() { return g_queue; }

event_queue::event_queue(sc_core::sc_module_name name)
    : sc_module(name), calendar_(buckets), busy_(buckets / 64), armed_ps_(never_armed) {
  g_queue = this;
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

event_queue::~event_queue() { g_queue = nullptr; }

timed_client::~timed_client() {
  if (id_ != no_id)
    if (event_queue* q = event_queue::existing()) q->forget(this);
}

// A client going away leaves its entries behind, never live: they are skipped, not run.
void event_queue::forget(timed_client* c) {
  if (c->at_ps_ != never_ps) --pending_;
  clients_[c->id_] = {nullptr, dead_seq};
}

// Out of line and cold: the message's strings would otherwise weigh on every schedule.
[[gnu::noinline, gnu::cold]] void event_queue::refuse_past(uint64_t at_ps) const {
  SC_REPORT_ERROR(name(), ("wake-up scheduled in the past: " + std::to_string(at_ps) + " ps < now " +
                           std::to_string(now_ps()) + " ps")
                              .c_str());
}

// A wake-up for a client with none pending, or earlier than the one pending.
void event_queue::add(timed_client* c, uint64_t at_ps, uint64_t sched_ps) {
  if (at_ps < now_ps()) refuse_past(at_ps);
  if (c->id_ == timed_client::no_id) enrol(c);
  if (c->at_ps_ == never_ps) ++pending_;
  c->at_ps_ = at_ps;
  const uint64_t lead = at_ps - std::min(sched_ps, at_ps);
  const entry e{at_ps, c->order_, seq_++, c->id_,
                static_cast<uint32_t>(std::min<uint64_t>(lead, std::numeric_limits<uint32_t>::max()))};
  clients_[c->id_].live_seq = e.seq;  // an entry queued earlier for this client is now stale
  insert(e);
  if (!running_ && at_ps < armed_ps_) arm(sc_core::sc_time_stamp().value());
}

[[gnu::noinline, gnu::cold]] void event_queue::enrol(timed_client* c) {
  c->id_ = static_cast<uint32_t>(clients_.size());
  clients_.push_back({c, dead_seq});
}

// Every wake-up is at or after now, and now is in the calendar's first bucket or later. Inline
// into add with append: one function per schedule, not four (each saved registers of its own).
[[gnu::always_inline]] inline void event_queue::insert(const entry& e) {
  const uint64_t b = e.at_ps >> bucket_shift;
  if (b >= cur_ + buckets || b == sorted_) return insert_apart(e);
  append(b & (buckets - 1), e);
}

// Beyond the calendar (the overflow heap), or into the bucket being run (in order).
[[gnu::noinline]] void event_queue::insert_apart(const entry& e) {
  if ((e.at_ps >> bucket_shift) >= cur_ + buckets) {
    overflow_.push_back(e);
    std::push_heap(overflow_.begin(), overflow_.end(), [](const entry& a, const entry& b) { return b.before(a); });
    return;
  }
  file(e);
}

void event_queue::file(const entry& e) {
  const uint64_t b = e.at_ps >> bucket_shift;
  if (b == sorted_) {  // usually an append: e is the latest entry for its time
    sorted_items_.insert(
        std::upper_bound(sorted_items_.begin() + static_cast<std::ptrdiff_t>(sorted_head_), sorted_items_.end(), e,
                         [](const entry& x, const entry& y) { return x.before(y); }),
        e);
    const std::size_t slot = b & (buckets - 1);
    busy_[slot >> 6] |= uint64_t{1} << (slot & 63);
    ++in_calendar_;
    return;
  }
  append(b & (buckets - 1), e);
}

[[gnu::always_inline]] inline void event_queue::append(std::size_t slot, const entry& e) {
  uint32_t n = free_;
  if (n == no_node) [[unlikely]] {
    n = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({});
  } else {
    free_ = nodes_[n].next;
  }
  nodes_[n] = {e, no_node};
  slot_list& l = calendar_[slot];
  if (l.tail == no_node)
    l.head = n;
  else
    nodes_[l.tail].next = n;
  l.tail = n;
  busy_[slot >> 6] |= uint64_t{1} << (slot & 63);
  ++in_calendar_;
}

// A wake-up was scheduled before the sorted bucket (by a foreign process, between drains): what
// is left of that bucket goes back to its list, to be sorted again when its turn comes.
void event_queue::unsort() {
  if (sorted_ == never_ps) return;
  const std::size_t slot = sorted_ & (buckets - 1);
  for (std::size_t i = sorted_head_; i < sorted_items_.size(); ++i) {
    append(slot, sorted_items_[i]);
    --in_calendar_;  // still the same entry
  }
  sorted_items_.clear();
  sorted_head_ = 0;
  sorted_ = never_ps;
}

// The first busy slot at or after `from`, going round: the calendar holds at least one entry.
std::size_t event_queue::next_busy_slot(std::size_t from) const {
  const std::size_t words = busy_.size();
  std::size_t w = from >> 6;
  uint64_t bits = busy_[w] & (~uint64_t{0} << (from & 63));
  for (std::size_t k = 0; k <= words; ++k) {
    if (bits) return (w << 6) + static_cast<std::size_t>(__builtin_ctzll(bits));
    w = (w + 1) & (words - 1);
    bits = busy_[w];
  }
  return from;  // not reached
}

// The next live wake-up (nullptr: none), dropping stale entries on the way. It does not move
// the calendar: a foreign process may still schedule before it.
const event_queue::entry* event_queue::front() {
  // The usual case while draining: the next wake-up is in the bucket being run.
  if (sorted_ == cur_ && sorted_head_ < sorted_items_.size() && live(sorted_items_[sorted_head_])) {
    front_from_ = from_sorted;
    return &sorted_items_[sorted_head_];
  }
  while (in_calendar_ > 0) {
    const std::size_t first = cur_ & (buckets - 1);
    const std::size_t slot = next_busy_slot(first);
    const uint64_t b = cur_ + ((slot - first) & (buckets - 1));
    if (b != sorted_) {
      slot_list& l = calendar_[slot];
      if (l.head != no_node &&
          (l.head == l.tail || (nodes_[l.head].next == l.tail && nodes_[l.head].e.before(nodes_[l.tail].e)))) {
        // A bucket of one entry (the usual case when wake-ups are sparse, as on a small fabric),
        // or of two in order (common when they come in clusters): its head is the next wake-up
        // as it stands, no sorting; it stays in its list until popped (a bucket of three or more
        // is sorted once instead: checking its head against the rest at every wake-up costs more).
        node& n = nodes_[l.head];
        if (live(n.e)) {
          front_from_ = from_lone;
          lone_bucket_ = b;
          return &n.e;
        }
        take_lone(slot);  // stale: dropped
        continue;
      }
      if (!sorted_items_.empty()) unsort();
      sorted_ = never_ps;
      for (uint32_t n = l.head; n != no_node;) {
        sorted_items_.push_back(nodes_[n].e);
        const uint32_t next = nodes_[n].next;
        nodes_[n].next = free_;
        free_ = n;
        n = next;
      }
      l = slot_list{};
      // In schedule order: an insertion sort for the usual few entries; a burst (thousands of
      // frames in one nanosecond, in no key order) is sorted in n log n.
      const auto before = [](const entry& x, const entry& y) { return x.before(y); };
      if (sorted_items_.size() > 32) std::sort(sorted_items_.begin(), sorted_items_.end(), before);
      for (std::size_t i = 1; i < sorted_items_.size(); ++i) {
        const entry x = sorted_items_[i];
        std::size_t j = i;
        for (; j > 0 && x.before(sorted_items_[j - 1]); --j) sorted_items_[j] = sorted_items_[j - 1];
        sorted_items_[j] = x;
      }
      sorted_ = b;
    }
    while (sorted_head_ < sorted_items_.size() && !live(sorted_items_[sorted_head_])) {
      ++sorted_head_;
      --in_calendar_;
    }
    if (sorted_head_ < sorted_items_.size()) {
      front_from_ = from_sorted;
      return &sorted_items_[sorted_head_];
    }
    sorted_items_.clear();
    sorted_head_ = 0;
    busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
  }
  const auto later = [](const entry& a, const entry& b) { return b.before(a); };
  while (!overflow_.empty() && !live(overflow_.front())) {
    std::pop_heap(overflow_.begin(), overflow_.end(), later);
    overflow_.pop_back();
  }
  front_from_ = from_overflow;
  return overflow_.empty() ? nullptr : &overflow_.front();
}

// Takes the head of a calendar slot's list (its one entry, or the first of two in order).
inline void event_queue::take_lone(std::size_t slot) {
  slot_list& l = calendar_[slot];
  const uint32_t h = l.head;
  l.head = nodes_[h].next;
  nodes_[h].next = free_;
  free_ = h;
  if (l.head == no_node) {
    l.tail = no_node;
    busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
  }
  --in_calendar_;
}

// Removes the entry front() returned and moves the calendar's start to its bucket.
void event_queue::pop_front() {
  if (front_from_ == from_lone) {
    take_lone(lone_bucket_ & (buckets - 1));
    advance_to(lone_bucket_);
    return;
  }
  if (front_from_ == from_overflow) {
    const uint64_t b = overflow_.front().at_ps >> bucket_shift;
    std::pop_heap(overflow_.begin(), overflow_.end(), [](const entry& a, const entry& c) { return c.before(a); });
    overflow_.pop_back();
    advance_to(b);
    return;
  }
  ++sorted_head_;
  --in_calendar_;
  if (sorted_head_ == sorted_items_.size()) {
    sorted_items_.clear();
    sorted_head_ = 0;
    const std::size_t slot = sorted_ & (buckets - 1);
    busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
  }
  advance_to(sorted_);
}

// The buckets before b are empty; the ones that enter the calendar take their wake-ups from the
// overflow heap, before anything else can be scheduled into them.
inline void event_queue::advance_to(uint64_t b) {
  if (b <= cur_) return;
  cur_ = b;
  // Tested here: the overflow heap usually holds a far wake-up (a PFC refresh) that is not due.
  if (!overflow_.empty() && (overflow_.front().at_ps >> bucket_shift) < cur_ + buckets) take_overflow();
}

[[gnu::noinline]] void event_queue::take_overflow() {
  const auto later = [](const entry& a, const entry& c) { return c.before(a); };
  while (!overflow_.empty() && (overflow_.front().at_ps >> bucket_shift) < cur_ + buckets) {
    const entry e = overflow_.front();
    std::pop_heap(overflow_.begin(), overflow_.end(), later);
    overflow_.pop_back();
    if (live(e)) file(e);
  }
}

void event_queue::arm(uint64_t kernel_ps) {
  const entry* next = front();
  if (!next) {
    armed_ps_ = never_armed;
    return;
  }
  armed_ps_ = std::max(next->at_ps, kernel_ps);
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
  const uint64_t limit = drain_limit(kernel);
  running_ = true;
  clock_detail::draining = true;
  clock_detail::now = kernel;
  clock_detail::kernel = kernel;
  break_ = false;
  while (!break_) {
    entry e;
    if (sorted_ == cur_ && sorted_head_ < sorted_items_.size() && live(sorted_items_[sorted_head_])) {
      // The usual case under load, front() and pop_front() in short: the next wake-up is in the
      // bucket being run.
      e = sorted_items_[sorted_head_];
      if (e.at_ps > limit) break;
      ++sorted_head_;
      --in_calendar_;
      if (sorted_head_ == sorted_items_.size()) {  // the bucket is done
        sorted_items_.clear();
        sorted_head_ = 0;
        const std::size_t slot = sorted_ & (buckets - 1);
        busy_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
      }
      // A large fabric's clients are cache misses. A bucket usually holds dozens of wake-ups,
      // so work ahead in three stages (counted from the wake-up about to run): the table slot
      // five wake-ups on, the client's first two lines three on (a model's own per-wake-up
      // fields follow its timer's), and two on the client's warm(), which prefetches what it
      // reaches through pointers.
      const std::size_t n = sorted_items_.size();
      if (sorted_head_ + 4 < n) __builtin_prefetch(&clients_[sorted_items_[sorted_head_ + 4].client]);
      if (sorted_head_ + 2 < n) {
        const char* later = reinterpret_cast<const char*>(clients_[sorted_items_[sorted_head_ + 2].client].client);
        __builtin_prefetch(later);
        __builtin_prefetch(later + 64);
      }
      if (sorted_head_ + 1 < n)
        if (const timed_client* c = clients_[sorted_items_[sorted_head_ + 1].client].client) c->warm();
    } else {
      const entry* next = front();
      if (!next || next->at_ps > limit) break;
      e = *next;
      pop_front();
    }
    client_slot& slot = clients_[e.client];
    timed_client* c = slot.client;
    slot.live_seq = dead_seq;
    c->at_ps_ = never_ps;
    --pending_;
    clock_detail::now = std::max(clock_detail::now, e.at_ps);
    g_running = c;
    c->on_timer();  // may schedule again, including at now
    g_running = nullptr;
  }
  const uint64_t reached = clock_detail::now;
  clock_detail::draining = false;
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

void event_queue::request_stop() {
  if (running_)
    stop_ = break_ = true;  // the drain ends after the current wake-up; sc_stop once the kernel is there
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
