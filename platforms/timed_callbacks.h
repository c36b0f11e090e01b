// Calls functions at given simulated times, once or periodically: a script's probes and
// interventions (Python's sim.at / sim.every) and the run's progress meter.
//
// They are foreign activity to the models' clock: each due time is a kernel event of this
// module, so the event queue drains every model wake-up before it and stops there (see
// models/core/event_queue.h); a callback sees the models exactly at its time and may change
// them (a link's rate) from then on.
#pragma once
#include <cstdint>
#include <functional>
#include <queue>
#include <systemc>
#include <vector>

namespace sluice {

class timed_callbacks : public sc_core::sc_module {
 public:
  // end_ps: the end of the run; nothing is scheduled at or after it except by finish().
  timed_callbacks(sc_core::sc_module_name name, uint64_t end_ps);
  SC_HAS_PROCESS(timed_callbacks);

  // Calls fn at at_ps, then every period_ps after that (0: once). Before the run.
  void add(uint64_t at_ps, uint64_t period_ps, std::function<void()> fn);
  // After the run: the kernel stops before the events due at its end; when the run reached its
  // end, calls those now, so `every 100us` over 10 ms gives 100 calls (at 0.1, 0.2, ... 10 ms).
  void finish();

 private:
  struct due {
    uint64_t at_ps, seq;
    std::size_t index;
    bool operator>(const due& o) const { return at_ps != o.at_ps ? at_ps > o.at_ps : seq > o.seq; }
  };
  struct entry {
    uint64_t period_ps;
    std::function<void()> fn;
  };
  void start_of_simulation() override;
  void fire();
  void push(uint64_t at_ps, std::size_t index);
  void call_due(uint64_t now);

  uint64_t end_ps_, seq_ = 0;
  std::vector<entry> entries_;
  std::priority_queue<due, std::vector<due>, std::greater<due>> queue_;
  sc_core::sc_event wake_;
};

}  // namespace sluice
