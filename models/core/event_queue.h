// The models' clock and their timed wake-ups, kept in one queue behind one kernel event.
//
// Why: every frame needs two or three timed wake-ups (end of serialization, arrival, pacing).
// As separate sc_events each costs a kernel timed notification. Here every client has at most
// one pending wake-up in an indexed min-heap whose keys (time, sequence) sit inline in the heap
// array, so comparisons never chase a client pointer.
//
// One clock: when the queue's kernel event fires it does not stop at the kernel's time. It
// drains every wake-up due before the next activity that is not its own (a sampler tick, a
// scenario event, an RTL clock, a Python callback: any other kernel event) and before the end
// of the current run, advancing the models' clock (`now_ps()`) itself. Kernel events therefore
// no longer scale with packets, and foreign processes still see the models exactly at their own
// times. Models read time from now_ps(), never from sc_time_stamp().
#pragma once
#include <cstdint>
#include <limits>
#include <systemc>
#include <vector>

namespace sluice {

constexpr uint64_t never_ps = std::numeric_limits<uint64_t>::max();

namespace clock_detail {
inline bool draining = false;  // inside the queue's drain: the models' clock runs ahead
inline uint64_t now = 0;       // the models' time while draining
}  // namespace clock_detail

// The models' current time in picoseconds: the one place models read time from.
inline uint64_t now_ps() { return clock_detail::draining ? clock_detail::now : sc_core::sc_time_stamp().value(); }

class timed_client {
 public:
  virtual ~timed_client() = default;
  virtual void on_timer() = 0;
  bool timer_pending() const { return heap_index_ >= 0; }

 private:
  friend class event_queue;
  int heap_index_ = -1;
};

class event_queue : public sc_core::sc_module {
 public:
  // The simulation's queue, created on first use (during elaboration).
  static event_queue& instance();
  // Calls client->on_timer() at absolute time at_ps, or earlier if the client already has an
  // earlier wake-up pending (a client has at most one). A time before now is a model error.
  void schedule(timed_client* client, uint64_t at_ps);
  // The wake-up time pending for `client`, never_ps if none.
  uint64_t pending_at(const timed_client* client) const {
    return client->heap_index_ < 0 ? never_ps : heap_[static_cast<std::size_t>(client->heap_index_)].at_ps;
  }
  std::size_t pending() const { return heap_.size(); }
  // Bounds the drain: no wake-up at or after end_ps runs inside the current sc_start. Without a
  // bound the queue never runs ahead of the kernel (see sluice::start).
  void set_end(uint64_t end_ps) { end_ps_ = end_ps; }
  // Stops the simulation at the models' current time (sc_stop once the kernel has caught up).
  void request_stop();
  // Kernel activations of the queue (a measure of the one-clock saving).
  uint64_t activations() const { return activations_; }

 private:
  struct entry {
    uint64_t at_ps, seq;
    timed_client* client;
    bool before(const entry& o) const { return at_ps != o.at_ps ? at_ps < o.at_ps : seq < o.seq; }
  };
  explicit event_queue(sc_core::sc_module_name name);
  SC_HAS_PROCESS(event_queue);
  static constexpr std::size_t arity = 4;
  void sift_up(std::size_t i);
  void pop_root();
  void place(std::size_t i, const entry& e) {
    heap_[i] = e;
    e.client->heap_index_ = static_cast<int>(i);
  }
  void run();
  void arm(uint64_t kernel_ps);
  uint64_t drain_limit(uint64_t kernel_ps) const;

  std::vector<entry> heap_;
  uint64_t seq_ = 0;
  uint64_t armed_ps_;  // time the kernel event is set for
  uint64_t end_ps_ = 0;
  uint64_t activations_ = 0;
  bool running_ = false, stop_ = false;
  sc_core::sc_event wake_;
};

// Runs the kernel for `duration`, letting the queue drain ahead up to the end of it. Use this
// instead of sc_start.
void start(const sc_core::sc_time& duration);

}  // namespace sluice
