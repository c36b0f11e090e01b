// Deadlock detection for lossless fabrics (docs/models/pfc.md, "Deadlock detection").
//
// A deadlock is a cycle of switch egress queues, each holding frames it may not send (the class
// is paused by PFC, or its VL is starved of credit), where each queue waits on the next: the
// switch downstream of a held queue holds frames that came in over that link, in the class the
// held queue is paused (or starved) in, and those frames sit in the next held queue of the
// cycle. Nothing in the cycle can move until something outside breaks it, so the pauses are
// refreshed (or the credit never returns) for ever.
//
// The detector looks at a configurable interval (`deadlock.interval`), never per frame. Only
// queues held without a break for at least `deadlock.persist` (a PFC pause that refreshes keeps
// its start; an XON or an expiry ends it) become nodes of the wait-for graph, so a check of a
// healthy fabric visits each port class once and builds nothing. A cycle among them is reported
// once: on stderr, in summary.json's `deadlocks`, and, with `deadlock.stop`, it ends the run.
#pragma once
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "models/core/params.h"
#include "platforms/fabric.h"

namespace sluice {

struct deadlock_member {
  std::string port;       // the held egress port, "s0.port4"
  std::string peer;       // the switch it waits on
  int cls = 0;            // the class (PFC priority, or the link's VL)
  uint64_t since_ps = 0;  // held without a break since
};

struct deadlock_report {
  uint64_t start_ps = 0;               // when the cycle closed: the latest of its members' holds began
  uint64_t detected_ps = 0;            // the check that found it
  bool credit = false;                 // credit starvation (InfiniBand) rather than PFC pauses
  std::vector<deadlock_member> cycle;  // in wait-for order: each waits on the next, the last on the first
  std::string text() const;            // one line for stderr
};

class deadlock_detector : public sc_core::sc_module {
 public:
  param<sc_core::sc_time> interval;  // deadlock.interval (0: no detection)
  param<sc_core::sc_time> persist;   // deadlock.persist
  param<bool> stop;                  // deadlock.stop

  deadlock_detector(sc_core::sc_module_name name, fabric& f);
  SC_HAS_PROCESS(deadlock_detector);

  // Looks for cycles held at least `persist` at `now_ps`; reports new ones. Called every
  // `interval` (tests may call it directly).
  void check(uint64_t now_ps);
  const std::vector<deadlock_report>& found() const { return found_; }

 private:
  void start_of_simulation() override;
  void tick();
  // One switch egress port whose peer is a switch.
  struct edge_port {
    int sw, port;            // this end
    int peer_sw, peer_port;  // the far end
  };
  struct node {  // a held (port, class)
    int sw, port, cls;
    uint64_t since_ps;
    std::size_t link;  // its entry in ports_
  };
  bool find_cycle(std::size_t n, std::vector<int>& color, std::vector<std::size_t>& stack);
  void report(const std::vector<std::size_t>& cycle, uint64_t now_ps);

  fabric& fabric_;
  sc_core::sc_event tick_;
  std::vector<edge_port> ports_;
  std::vector<node> nodes_;                      // scratch, per check
  std::vector<std::vector<std::size_t>> edges_;  // scratch: wait-for edges between nodes_
  std::set<std::vector<uint64_t>> reported_;     // cycles by their members' keys, smallest first
  std::vector<deadlock_report> found_;
  bool credit_ = false;
};

}  // namespace sluice
