// The models' timed wake-ups, kept in one queue behind one kernel event.
//
// Why: every frame needs two or three timed wake-ups (end of serialization, arrival, pacing).
// As separate sc_events each costs a kernel timed notification: a heap-allocated record in a
// heap of function-pointer comparisons, where a cancelled notification lingers until its time
// (a PFC resume cancels a wake-up up to a pause time away: hundreds linger under incast).
// Here every client has at most one pending wake-up, held in an indexed min-heap that moves a
// client up when its wake-up comes earlier; the kernel sees one notification, the earliest.
// Kernel time still advances exactly to each wake-up, so other SystemC processes (samplers,
// RTL, firmware) interleave correctly. Ties run in the order they were scheduled.
#pragma once
#include <cstdint>
#include <limits>
#include <systemc>
#include <vector>

namespace sluice {

class event_queue;

class timed_client {
 public:
  virtual ~timed_client() = default;
  virtual void on_timer() = 0;
  bool timer_pending() const { return heap_index_ >= 0; }
  uint64_t timer_ps() const { return at_ps_; }

 private:
  friend class event_queue;
  uint64_t at_ps_ = std::numeric_limits<uint64_t>::max();
  uint64_t seq_ = 0;
  int heap_index_ = -1;
};

class event_queue : public sc_core::sc_module {
 public:
  // The simulation's queue, created on first use (during elaboration).
  static event_queue& instance();
  // Calls client->on_timer() at absolute time at_ps (>= now), or earlier if the client already
  // has an earlier wake-up pending (a client has at most one).
  void schedule(timed_client* client, uint64_t at_ps);
  std::size_t pending() const { return heap_.size(); }

 private:
  explicit event_queue(sc_core::sc_module_name name);
  SC_HAS_PROCESS(event_queue);
  static bool before(const timed_client* a, const timed_client* b) {
    return a->at_ps_ != b->at_ps_ ? a->at_ps_ < b->at_ps_ : a->seq_ < b->seq_;
  }
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void place(std::size_t i, timed_client* c) {
    heap_[i] = c;
    c->heap_index_ = static_cast<int>(i);
  }
  void run();
  void arm(uint64_t now_ps);

  std::vector<timed_client*> heap_;
  uint64_t seq_ = 0;
  uint64_t armed_ps_;  // time the kernel event is set for
  bool running_ = false;
  sc_core::sc_event wake_;
};

}  // namespace sluice
